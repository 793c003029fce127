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

export function formatCoordinate(deg: number): string {
  return formatScaled(roundHalfAwayFromZero(deg * 10_000), 4);
}
