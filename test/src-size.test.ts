import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The house rule (CONTRIBUTING.md, "Commits and style"; ARCHITECTURE.md, "Files"): no source file in src/ over this. */
const MAX_LINES = 300;
/** Source files: code, styles and pages. Data (towns.json) and notes (TOWNS.md) are not counted. */
const SOURCE = /\.(ts|js|css|html)$/;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every source file under a folder, as paths from the repository's root with '/' between parts. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.isFile() && SOURCE.test(entry.name)) files.push(relative(ROOT, path).split(/[\\/]/).join('/'));
  }
  return files.sort();
}

/** Lines as `wc -l` counts them, plus a last line that has no newline after it. */
function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return text.length > 0 && !text.endsWith('\n') ? count + 1 : count;
}

describe('the size of source files', () => {
  test('lines are counted as wc -l counts them', () => {
    assert.equal(lineCount(''), 0);
    assert.equal(lineCount('a\n'), 1);
    assert.equal(lineCount('a\nb'), 2);
    assert.equal(lineCount('a\n\nb\n'), 3);
  });

  test(`no file in src/ is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(join(ROOT, 'src'));
    // The walk reaches every floor, the browser's files included.
    for (const known of ['src/app.ts', 'src/storage/sql/writer.ts', 'src/ingest/feeds/nsw.ts', 'src/web/page/dashboard.css', 'src/web/page/index.html']) {
      assert.ok(files.includes(known), `${known} was not found`);
    }
    const over = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(over, [], `split these along a seam (ARCHITECTURE.md, "Files"): ${over.join(', ')}`);
  });
});
