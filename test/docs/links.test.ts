import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

/**
 * Every relative link in the repository's Markdown resolves: the file or folder it names exists,
 * and an anchor (`FILE.md#section`, or `#section` within the page) is a heading of that page, as
 * GitHub makes heading anchors. Links to other sites are not followed (tests stay offline), and
 * text in code (fenced blocks and `inline code`) is not a link.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The Markdown files of the repository, tracked or new (not ignored ones: node_modules, dist, data). */
function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter((f) => f !== '' && existsSync(join(ROOT, f)));
}

/** The page's lines, each undefined inside a fenced code block (its fences included). */
function unfenced(text: string): Array<string | undefined> {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker.startsWith(fence)) fence = undefined;
      return undefined;
    }
    return fence === undefined ? line : undefined;
  });
}

/** The page's lines outside fenced code blocks, inline code blanked. */
function prose(text: string): string[] {
  return unfenced(text).map((line) => (line === undefined ? '' : line.replace(/`+[^`]*`+/g, '')));
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor of a Markdown page, duplicates numbered as GitHub numbers them (`-1`, `-2`). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of unfenced(text)) {
    if (line === undefined) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link { file: string; line: number; target: string }

function links(file: string): Link[] {
  const found: Link[] = [];
  prose(readFileSync(join(ROOT, file), 'utf8')).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ file, line: i + 1, target: m[1] ?? '' });
    }
  });
  return found;
}

const external = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe('Markdown links', () => {
  const files = markdownFiles();

  test('the pages looked at include the README, the docs index and every docs page', () => {
    assert.ok(files.includes('README.md'));
    assert.ok(files.includes('docs/README.md'));
    assert.ok(files.filter((f) => /^docs\/[^/]+\.md$/.test(f)).length >= 15, files.join(' '));
  });

  test('the slugs are GitHub\'s', () => {
    assert.equal(slug('14b. `GET /v1/prices/changes?since=CURSOR` — price changes as they happen'), '14b-get-v1priceschangessincecursor--price-changes-as-they-happen');
    assert.equal(slug('Fresh prices only: `max_age`'), 'fresh-prices-only-max_age');
    assert.equal(slug('Decisions beyond DESIGN.md'), 'decisions-beyond-designmd');
    assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### A')], ['a', 'a-1', 'a-2']);
  });

  test('every relative link names a file that exists, and every anchor a heading of its page', () => {
    const broken: string[] = [];
    const pages = new Map<string, Set<string>>();
    const anchorsOf = (path: string): Set<string> => {
      let set = pages.get(path);
      if (set === undefined) pages.set(path, set = anchors(readFileSync(path, 'utf8')));
      return set;
    };
    let checked = 0;
    for (const file of files) {
      for (const { line, target } of links(file)) {
        if (external(target)) continue;
        checked += 1;
        const [pathPart = '', anchor] = target.split('#', 2);
        const path = pathPart === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(pathPart));
        const where = `${file}:${line} → ${target}`;
        if (!path.startsWith(ROOT)) { broken.push(`${where} (outside the repository)`); continue; }
        if (!existsSync(path)) { broken.push(`${where} (no ${relative(ROOT, path)})`); continue; }
        if (anchor !== undefined && anchor !== '' && statSync(path).isFile() && path.endsWith('.md') && !anchorsOf(path).has(anchor)) {
          broken.push(`${where} (no heading #${anchor} in ${relative(ROOT, path)})`);
        }
      }
    }
    assert.ok(checked > 50, `links checked: ${checked}`);
    assert.deepEqual(broken, []);
  });
});

describe('docs/README.md, the index by reader', () => {
  test('lists every page of docs/ exactly once, one line each, under one of its three readers', () => {
    const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const sections = index.split(/^## /m).slice(1);
    assert.deepEqual(sections.map((s) => s.split('\n')[0]), ['Using the API', 'Running a server', 'Where the numbers come from']);
    const listed = sections.flatMap((s) => [...s.matchAll(/^- \[([^\]]+)\]\(([^)]+)\): \S.*$/gm)].map((m) => {
      assert.equal(m[1], m[2], `the line names its page: ${m[0]}`);
      return m[2] ?? '';
    }));
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
    assert.ok(pages.length >= 20, pages.join(' '));
    assert.deepEqual([...listed].sort(), pages);
  });
});
