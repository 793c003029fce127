// Means are computed in floating point, so a true x.5 can arrive as
// x.4999999999; anything that close to the boundary is treated as half.
export function roundHalfAwayFromZero(x: number): number {
  const a = Math.abs(x);
  const whole = Math.floor(a);
  const tolerance = Math.max(1e-9, 1e-9 * a);
  const r = a - whole >= 0.5 - tolerance ? whole + 1 : whole;
  // No negative zero: it would print as '-0.0' in some formatters.
  return x < 0 && r !== 0 ? -r : r;
}

// Builds the string from an integer so toFixed's binary-float rounding never
// gets a second say.
function formatScaled(units: number, decimals: number): string {
  const scale = 10 ** decimals;
  const sign = units < 0 ? '-' : '';
  const a = Math.abs(units);
  const frac = String(a % scale).padStart(decimals, '0');
  return `${sign}${Math.floor(a / scale)}.${frac}`;
}

export function formatCents(meanTenths: number): string {
  return formatScaled(roundHalfAwayFromZero(meanTenths), 1);
}

// Rounds the tenths straight to whole cents: going via formatCents would
// round twice (1894.5 -> 189.5 -> 190 instead of 189).
export function formatDollars(meanTenths: number): string {
  return formatScaled(roundHalfAwayFromZero(meanTenths / 10), 2);
}

/**
 * A decimal number's text ("144.85954996", "-0.00005", "1e-7") rounded half away from zero to
 * `decimals` places, exactly, as an integer count of 10^-decimals: 144.85954996 to 4 places is
 * 1448595. Digits are read, never multiplied in binary floating point, so the result is that of
 * the text itself. Undefined when the text is not a plain decimal number.
 */
export function roundDecimalText(text: string, decimals: number): number | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  // The digits as one string with the decimal point `point` digits from the left.
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  digits = digits.padEnd(point + decimals + 1, '0');
  const kept = digits.slice(0, point + decimals).replace(/^0+(?=\d)/, '') || '0';
  const units = Number(kept) + (Number(digits[point + decimals]) >= 5 ? 1 : 0);
  if (!Number.isSafeInteger(units)) return undefined;
  return sign === '-' && units !== 0 ? -units : units;
}

/**
 * Degrees with four decimals (about 11 m), rounded once and exactly: from the number's shortest
 * decimal text, the text the feed sent when it came as JSON or XML (a float never round-trips
 * through `deg * 10000`, which made 144.85954996 "144.8596"). Rounding the result again gives it back.
 */
export function formatCoordinate(deg: number | string): string {
  const units = roundDecimalText(typeof deg === 'number' ? String(deg) : deg, 4);
  if (units === undefined) throw new RangeError(`not a coordinate: ${String(deg).slice(0, 40)}`);
  return formatScaled(units, 4);
}
