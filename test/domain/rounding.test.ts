import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  formatCents,
  formatCoordinate,
  formatDollars,
  roundDecimalText,
  roundHalfAwayFromZero,
} from '../../src/domain/rounding.ts';

const round = roundHalfAwayFromZero;

describe('roundHalfAwayFromZero', () => {
  test('examples', () => {
    assert.equal(round(0), 0);
    assert.equal(round(2.5), 3);
    assert.equal(round(-2.5), -3);
    assert.equal(round(2.4), 2);
    assert.equal(round(-2.4), -2);
    assert.equal(round(2.6), 3);
    assert.equal(round(1899.5), 1900);
    assert.equal(round(1899.49), 1899);
    assert.equal(round(-0.4), 0);
    assert.ok(!Object.is(round(-0.4), -0));
  });

  test('floating-point noise just below .5 counts as half', () => {
    const a = 0.7 * 3 + 0.2 * 2; // 2.5 in exact arithmetic
    assert.ok(a < 2.5);
    assert.equal(round(a), 3);
    assert.equal(round(-a), -3);
    const b = 3.3 * 3 + 0.3 * 2; // 10.5
    assert.ok(b < 10.5);
    assert.equal(round(b), 11);
    const c = 1.005 * 1000 - 0.5; // 1004.5
    assert.ok(c < 1004.5);
    assert.equal(round(c), 1005);
    assert.equal(round((1899.4 + 1899.6) / 2), 1900);
    assert.equal(round(1899.5 - 1e-12), 1900);
    assert.equal(round(1899.5 - 1e-3), 1899);
    assert.equal(round((0.1 + 0.2) * 5), 2); // 1.5000000000000002
  });

  test('symmetric about zero', () => {
    fc.assert(fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (x) => {
      assert.equal(round(-x) + 0, -round(x) + 0);
    }), { numRuns: 1000 });
  });

  test('n + 0.5 rounds up for n >= 0', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e9 }), (n) => {
      assert.equal(round(n + 0.5), n + 1);
      assert.equal(round(-(n + 0.5)), -(n + 1));
    }), { numRuns: 1000 });
  });

  test('integer result within half (plus tolerance) of x', () => {
    fc.assert(fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (x) => {
      const r = round(x);
      assert.ok(Number.isInteger(r));
      assert.ok(Math.abs(r - x) <= 0.5 + Math.max(1e-9, 1e-9 * Math.abs(x)));
    }), { numRuns: 1000 });
  });
});

describe('formatting', () => {
  test('formatCents', () => {
    assert.equal(formatCents(1899), '189.9');
    assert.equal(formatCents(1899.5), '190.0');
    assert.equal(formatCents((1899.4 + 1899.6) / 2), '190.0');
    assert.equal(formatCents(1899.4999999999998), '190.0');
    assert.equal(formatCents(1899.49), '189.9');
    assert.equal(formatCents(950), '95.0');
    assert.equal(formatCents(0), '0.0');
    assert.equal(formatCents(5), '0.5');
    assert.equal(formatCents(-5), '-0.5');
    assert.equal(formatCents(-1899.5), '-190.0');
    assert.equal(formatCents(-0.3), '0.0');
  });

  test('formatDollars rounds once, straight to cents', () => {
    assert.equal(formatDollars(1899), '1.90');
    assert.equal(formatDollars(1894.9), '1.89');
    assert.equal(formatDollars(1895), '1.90');
    // Via formatCents this would be 189.5 c and then $1.90.
    assert.equal(formatDollars(1894.5), '1.89');
    assert.equal(formatDollars(999), '1.00');
    assert.equal(formatDollars(50), '0.05');
    assert.equal(formatDollars(0), '0.00');
    assert.equal(formatDollars(4), '0.00');
    assert.equal(formatDollars(12345), '12.35');
    assert.equal(formatDollars(-1895), '-1.90');
    assert.equal(formatDollars(18945 - 1e-9), '18.95');
  });

  test('formatCoordinate', () => {
    assert.equal(formatCoordinate(-33.86785), '-33.8679');
    assert.equal(formatCoordinate(151.20935), '151.2094');
    assert.equal(formatCoordinate(151.2093), '151.2093');
    assert.equal(formatCoordinate(-33.86784), '-33.8678');
    assert.equal(formatCoordinate(0), '0.0000');
    assert.equal(formatCoordinate(-0.00004), '0.0000');
    assert.equal(formatCoordinate(-0.00005), '-0.0001');
    assert.equal(formatCoordinate(115.8), '115.8000');
    assert.equal(formatCoordinate(1.00005), '1.0001');
  });

  test('formatCoordinate rounds the decimal once, exactly: a VIC longitude of 144.85954996 is 144.8595', () => {
    // Fair Fuel's AMPOL FOODARY AVONDALE HEIGHTS (prices of 1 May 2026): 144.8595|4996, the dropped part under a half.
    assert.equal(formatCoordinate(144.85954996), '144.8595');
    assert.equal(formatCoordinate('144.85954996'), '144.8595');
    // The other seven of that day that the old rounding (x 10000 with a relative tolerance) pushed up.
    assert.equal(formatCoordinate(145.39094988566166), '145.3909');
    assert.equal(formatCoordinate(144.97984994), '144.9798');
    assert.equal(formatCoordinate(144.47084988), '144.4708');
    assert.equal(formatCoordinate(145.08844991883612), '145.0884');
    assert.equal(formatCoordinate(145.02244992565437), '145.0224');
    assert.equal(formatCoordinate(144.77534986665688), '144.7753');
    // Stored as shown and shown again: the same text (the writer keeps coordinates rounded).
    assert.equal(formatCoordinate(Number(formatCoordinate(144.85954996))), '144.8595');
    assert.equal(formatCoordinate(1e-7), '0.0000');
    assert.equal(formatCoordinate(-1e-5), '0.0000');
  });
});

describe('roundDecimalText', () => {
  test('examples', () => {
    assert.equal(roundDecimalText('144.85954996', 4), 1448595);
    assert.equal(roundDecimalText('144.85955', 4), 1448596);
    assert.equal(roundDecimalText('-144.85955', 4), -1448596);
    assert.equal(roundDecimalText('134.69999999999999', 1), 1347);
    assert.equal(roundDecimalText('185.95', 1), 1860);
    assert.equal(roundDecimalText('185.94999', 1), 1859);
    assert.equal(roundDecimalText('189', 1), 1890);
    assert.equal(roundDecimalText('.5', 0), 1);
    assert.equal(roundDecimalText('1.5e3', 1), 15000);
    assert.equal(roundDecimalText('1e-7', 4), 0);
    assert.equal(roundDecimalText('-0.00004', 4), 0);
    assert.ok(!Object.is(roundDecimalText('-0.00004', 4), -0));
    for (const bad of ['', '-', '.', 'abc', '1,5', '0x10', '1e', '1e400']) assert.equal(roundDecimalText(bad, 4), undefined, bad);
  });

  test('agrees with a BigInt reference on random decimal texts', () => {
    // Reference: scale by 10^(decimals + 1) in BigInt, then half away from zero on the last digit.
    const reference = (negative: boolean, whole: string, fraction: string, decimals: number): number => {
      const digits = BigInt(whole + fraction.padEnd(decimals + 1, '0').slice(0, decimals + 1));
      // Digits past the first dropped one never change a rounding half away from zero.
      const units = digits / 10n + (digits % 10n >= 5n ? 1n : 0n);
      return Number(negative && units !== 0n ? -units : units);
    };
    fc.assert(fc.property(
      fc.boolean(), fc.stringMatching(/^[1-9]\d{0,3}$|^0$/), fc.stringMatching(/^\d{0,12}$/), fc.integer({ min: 0, max: 6 }),
      (negative, whole, fraction, decimals) => {
        const text = `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
        assert.equal(roundDecimalText(text, decimals), reference(negative, whole, fraction, decimals), text);
      },
    ), { numRuns: 2000 });
  });
});
