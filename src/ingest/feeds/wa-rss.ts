/**
 * FuelWatch's public RSS read as items: one <item> a station and product, its child elements by
 * name (text and CDATA only; FuelWatch items nest nothing). A cut or garbled answer throws
 * FeedError('malformed'), so nothing of the poll is applied. The feed itself is wa.ts.
 */
import { FeedError, stripBom } from '../feed-error.ts';

export type WaItem = Readonly<Record<string, string>>;

function malformed(message: string): FeedError {
  return new FeedError('malformed', `FuelWatch RSS: ${message}`);
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text with its five named entities and numeric references decoded; anything else is left as written. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

/** An element's content: text and CDATA sections only (FuelWatch items nest nothing). */
function elementText(content: string, name: string): string {
  let out = '';
  let rest = content;
  for (;;) {
    const cdata = rest.indexOf('<![CDATA[');
    const plain = cdata < 0 ? rest : rest.slice(0, cdata);
    if (plain.includes('<')) throw malformed(`<${name}> holds markup where text was expected`);
    out += decodeXmlText(plain);
    if (cdata < 0) return out;
    const end = rest.indexOf(']]>', cdata);
    if (end < 0) throw malformed(`<${name}> has an unclosed CDATA section`);
    out += rest.slice(cdata + 9, end);
    rest = rest.slice(end + 3);
  }
}

const CHILD_OPEN = /\s*<([A-Za-z_][\w.-]*)(\s[^<>]*?)?(\/?)>/y;

/** The child elements of one <item>, by name (the first of a repeated name wins). */
function itemChildren(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    if (/^\s*$/.test(body.slice(at))) break;
    CHILD_OPEN.lastIndex = at;
    const open = CHILD_OPEN.exec(body);
    if (!open) throw malformed(`unexpected content in an <item>: '${body.slice(at, at + 40).trim()}'`);
    const name = open[1] ?? '';
    at = CHILD_OPEN.lastIndex;
    let value = '';
    if (open[3] !== '/') {
      const close = body.indexOf(`</${name}>`, at);
      if (close < 0) throw malformed(`<${name}> is not closed`);
      value = elementText(body.slice(at, close), name);
      at = close + name.length + 3;
    }
    if (!Object.hasOwn(fields, name)) fields[name] = value.trim();
  }
  return fields;
}

/**
 * The items of one FuelWatch answer. Throws FeedError('malformed') when the body is not an RSS
 * document with a complete <channel> (a cut or garbled answer), so nothing of the poll is applied.
 */
export function parseFuelWatchRss(body: string): WaItem[] {
  const text = stripBom(body).trim();
  const doc = text.replace(/^<\?xml[^>]*\?>\s*/, '').replace(/^(<!--[\s\S]*?-->\s*)+/, '');
  if (!/^<rss[\s>]/.test(doc)) throw malformed('the answer is not an RSS document');
  if (!/<\/channel>\s*<\/rss>$/.test(doc)) throw malformed('the document ends before </channel></rss> (truncated?)');
  const open = doc.indexOf('<channel>');
  if (open < 0) throw malformed('no <channel>');
  const channel = doc.slice(open + 9, doc.lastIndexOf('</channel>'));
  const items: WaItem[] = [];
  let at = 0;
  for (;;) {
    const start = channel.indexOf('<item>', at);
    if (start < 0) break;
    const end = channel.indexOf('</item>', start);
    if (end < 0) throw malformed('an <item> is not closed');
    items.push(itemChildren(channel.slice(start + 6, end)));
    at = end + 7;
  }
  if (/<item[\s>]/.test(channel.slice(at)) || channel.slice(at).includes('</item>')) throw malformed('stray <item> markup');
  return items;
}
