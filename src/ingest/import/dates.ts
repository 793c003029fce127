/**
 * The date and time shapes of the published price files, read into wall-clock parts. Which
 * zone a wall clock is in is the format's business (NSW: Sydney time, QLD: UTC, WA: a date at
 * 06:00 WA time). Anything else, including month-first dates, is not guessed at: undefined.
 */

export interface WallClock {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

const DAY_FIRST = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const DAY_FIRST_TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AaPp])\.?[Mm]\.?)?$/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?Z?$/;

function daysIn(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function valid(c: WallClock): WallClock | undefined {
  const { y, m, d, h, mi, s } = c;
  if (y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return undefined;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  return c;
}

/** `dd/mm/yyyy` (or `d/m/yyyy`). */
export function parseDayFirstDate(text: string): WallClock | undefined {
  const match = DAY_FIRST.exec(text.trim());
  if (!match) return undefined;
  return valid({ y: Number(match[3]), m: Number(match[2]), d: Number(match[1]), h: 0, mi: 0, s: 0 });
}

/**
 * `1/08/2016 12:02:00 AM`, `01/08/2016 00:02` or `01/08/2016 00:02:00`: day first, a 24-hour
 * or an AM/PM time, seconds optional.
 */
export function parseDayFirstDateTime(text: string): WallClock | undefined {
  const match = DAY_FIRST_TIME.exec(text.trim());
  if (!match) return undefined;
  let h = Number(match[4]);
  const meridiem = match[7]?.toLowerCase();
  if (meridiem !== undefined) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (meridiem === 'p' ? 12 : 0);
  }
  return valid({ y: Number(match[3]), m: Number(match[2]), d: Number(match[1]), h, mi: Number(match[5]), s: Number(match[6] ?? 0) });
}

/** `2016-09-01 00:01:35`, `2016-09-01T00:01:35` or `2016-09-01T00:01` (fractions of a second dropped). */
export function parseIsoDateTime(text: string): WallClock | undefined {
  const match = ISO_TIME.exec(text.trim());
  if (!match) return undefined;
  return valid({
    y: Number(match[1]), m: Number(match[2]), d: Number(match[3]), h: Number(match[4]), mi: Number(match[5]), s: Number(match[6] ?? 0),
  });
}

const EXCEL_SERIAL = /^\d{5}(\.\d+)?$/;
/** Day 0 of Excel's (1900) date system is 30 December 1899; serials past 60 are free of its 1900 leap-year slip. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/**
 * An Excel serial date-time (`43435.009363425925`: days since 30 Dec 1899, the fraction the time
 * of day), as the wall clock it encodes, to the nearest second. Excel stores no zone: which one
 * the clock is in is the format's business. Only five-digit serials (1973 to 2173) are read, so
 * no other number is taken for a date.
 */
export function parseExcelSerial(text: string): WallClock | undefined {
  const trimmed = text.trim();
  if (!EXCEL_SERIAL.test(trimmed)) return undefined;
  const date = new Date(EXCEL_EPOCH_MS + Math.round(Number(trimmed) * 86_400) * 1000);
  return valid({
    y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate(),
    h: date.getUTCHours(), mi: date.getUTCMinutes(), s: date.getUTCSeconds(),
  });
}

/** Unix seconds of a wall clock read as UTC. */
export function utcWallToUnix(c: WallClock): number {
  return Date.UTC(c.y, c.m - 1, c.d, c.h, c.mi, c.s) / 1000;
}
