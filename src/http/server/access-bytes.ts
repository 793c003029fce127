/**
 * The access line (request-log.ts) encoded straight into the log's byte buffer (LineBuffer),
 * with no string made for it: the parts an answer or the process fix are kept as bytes, and
 * what changes per request (the time, the request id, the duration, the token id and the
 * address) is written byte by byte. The text is the same as request-log.ts's string line,
 * character for character (test/http/server/access-bytes.test.ts compares the two); a line with a request id,
 * token id or address that is not plain text (PLAIN), or a duration too large to be written
 * here, is not encoded (encode returns false) and goes the string way.
 *
 * Why: under load the line was the largest part of what `serve` spends on a cached answer
 * beyond a bare node:http server: building a dozen-piece string, then flattening a buffer's
 * worth of such strings and measuring its UTF-8 length before each write (bench/RESULTS.md,
 * "Logging as shipped").
 */
import type { LineBuffer } from './log-buffer.ts';

/** Characters that stand for themselves in a JSON string: those of request ids, token ids and addresses. */
export const PLAIN = /^[A-Za-z0-9._:-]*$/;

/** `JSON.stringify(text)` for a string: quoted as it is when plain, else by JSON.stringify. */
export function jsonText(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** The duration's hundredths are written here below this (a duration of 2^31 hundredths, some 250 days, the string way). */
const MAX_HUNDREDTHS = 2 ** 31;
/** The longest time in milliseconds written here (13 digits until the year 2286), a duration, and their punctuation. */
const NUMBERS_BYTES = 16 + 16;

/** For each ASCII code, 1 when PLAIN allows the character. */
const PLAIN_CODES = new Uint8Array(128).map((_, code) => (PLAIN.test(String.fromCharCode(code)) ? 1 : 0));

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const TOKEN = bytes(',"token":"');
const TOKEN_END_IP = bytes('","ip":"');
const IP = bytes(',"ip":"');

/** What an answer fixes of its line, as bytes: its part of the line between the request id's value and the duration's. */
export function answerBytes(partText: string): Buffer {
  return bytes(`"${partText},"ms":`);
}

/** Encodes access lines of one logger into `lines`: `bindings` is pino's `,"pid":...` string, `message` the line's msg. */
export function lineEncoder(lines: LineBuffer, bindings: string, message: string): (
  level: number, answer: Buffer, reqId: string, ms: number, token: string | undefined, ip: string,
) => boolean {
  const debugHead = bytes('{"level":20,"time":');
  const infoHead = bytes('{"level":30,"time":');
  const reqIdKey = bytes(`${bindings},"reqId":"`);
  const tail = bytes(`","msg":${JSON.stringify(message)}}\n`);
  const fixed = infoHead.length + reqIdKey.length + TOKEN.length + TOKEN_END_IP.length + tail.length + NUMBERS_BYTES;
  // The time as text, made again only when the millisecond changes (many lines share one under load).
  let timeMs = -1;
  let time = '';
  return (level, answer, reqId, ms, token, ip) => {
    const head = level === 30 ? infoHead : level === 20 ? debugHead : undefined;
    const hundredths = Math.round(ms * 100);
    if (head === undefined || !(hundredths >= 0 && hundredths < MAX_HUNDREDTHS)) return false;
    const at = lines.reserve(fixed + answer.length + reqId.length + ip.length + (token?.length ?? 0));
    if (at < 0) return true; // dropped, and counted, as a string line would be
    const now = Date.now();
    if (now !== timeMs) {
      timeMs = now;
      time = String(now);
    }
    const target = lines.target;
    let end = putPlain(target, put(target, at, head), time);
    end = putPlain(target, put(target, end, reqIdKey), reqId);
    if (end < 0) return false;
    end = putHundredths(target, put(target, end, answer), hundredths);
    if (token !== undefined) end = put(target, putPlain(target, put(target, end, TOKEN), token), TOKEN_END_IP);
    else end = put(target, end, IP);
    end = putPlain(target, end, ip);
    if (end < 0) return false; // nothing committed: the string line takes the reserved room
    lines.commit(put(target, end, tail));
    return true;
  };
}

/** `source` at `at` (a negative `at`, an encoding given up, stays so). */
function put(target: Buffer, at: number, source: Buffer): number {
  if (at < 0) return at;
  target.set(source, at);
  return at + source.length;
}

/** Plain text at `at`, one byte a character; -1 when a character is not PLAIN (or `at` is negative). */
function putPlain(target: Buffer, at: number, text: string): number {
  if (at < 0) return at;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f || PLAIN_CODES[code] === 0) return -1;
    target[at + i] = code;
  }
  return at + text.length;
}

/**
 * `hundredths / 100` as JavaScript writes it (`${Math.round(ms * 100) / 100}`), for hundredths
 * from 0 to 2^31: the whole part, then up to two decimals without a trailing zero. A number with
 * at most two decimals this small is the shortest text that reads back as the same double,
 * which is what JavaScript writes.
 */
export function putHundredths(target: Buffer, at: number, hundredths: number): number {
  if (at < 0) return at;
  const whole = (hundredths / 100) | 0;
  const fraction = hundredths - whole * 100;
  let digits = 1;
  for (let power = 10; power <= whole; power *= 10) digits++;
  let end = at + digits;
  for (let i = end - 1, rest = whole; i >= at; i--, rest = (rest / 10) | 0) target[i] = 0x30 + (rest % 10);
  if (fraction === 0) return end;
  target[end++] = 0x2e; // .
  target[end++] = 0x30 + ((fraction / 10) | 0);
  if (fraction % 10 !== 0) target[end++] = 0x30 + (fraction % 10);
  return end;
}
