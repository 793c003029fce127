/**
 * Numeric columns of a bulk statement sent to PostgreSQL as binary arrays (array_send's
 * format): node-postgres sends a Buffer parameter in binary, and the server reads it with the
 * type's receive function, where a JavaScript array goes as an array literal that the client
 * builds element by element and the server parses (issue 46: a NSW month imported after the
 * live feed writes 1.6 million city means, and building and parsing their literals was most
 * of what the write cost both sides). The bits are the same: integers are exact either way,
 * and a double sent as its eight bytes is the double a literal's shortest round-trip digits
 * parse back to.
 *
 * A column is encoded only when every value fits its type exactly (no null, an integer in
 * range, a boolean as true, false, 1 or 0); otherwise undefined is returned and the column goes
 * as a literal as before, so a bad value meets the server's own error as it always did.
 */

interface ElementType {
  oid: number;
  size: number;
  fits(value: unknown): boolean;
  write(buffer: Buffer, offset: number, value: unknown): void;
}

function integerType(oid: number, size: 2 | 4, min: number, max: number): ElementType {
  return {
    oid, size,
    fits: (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
    write: size === 4 ? (b, o, v) => b.writeInt32BE(v as number, o) : (b, o, v) => b.writeInt16BE(v as number, o),
  };
}

const ELEMENT_TYPES: Readonly<Record<string, ElementType>> = {
  smallint: integerType(21, 2, -32768, 32767),
  integer: integerType(23, 4, -2147483648, 2147483647),
  bigint: {
    oid: 20, size: 8,
    fits: (v) => typeof v === 'number' && Number.isSafeInteger(v),
    write: (b, o, v) => { b.writeBigInt64BE(BigInt(v as number), o); },
  },
  'double precision': {
    oid: 701, size: 8,
    fits: (v) => typeof v === 'number',
    // −0 as +0: the literal of −0 is "0".
    write: (b, o, v) => { b.writeDoubleBE(v === 0 ? 0 : (v as number), o); },
  },
  boolean: {
    oid: 16, size: 1,
    fits: (v) => v === true || v === false || v === 1 || v === 0,
    write: (b, o, v) => { b[o] = v === true || v === 1 ? 1 : 0; },
  },
};

/** The column as a one-dimensional binary array of `type`, or undefined when it is not one of the types above or a value does not fit. */
export function binaryArray(type: string, values: readonly unknown[]): Buffer | undefined {
  const element = ELEMENT_TYPES[type];
  if (!element || values.length === 0) return undefined;
  for (const value of values) if (!element.fits(value)) return undefined;
  // ndim, flags (no nulls), element type, then the one dimension's length and lower bound; then each element's length and bytes.
  const buffer = Buffer.allocUnsafe(20 + values.length * (4 + element.size));
  buffer.writeInt32BE(1, 0);
  buffer.writeInt32BE(0, 4);
  buffer.writeUInt32BE(element.oid, 8);
  buffer.writeInt32BE(values.length, 12);
  buffer.writeInt32BE(1, 16);
  let offset = 20;
  for (const value of values) {
    buffer.writeInt32BE(element.size, offset);
    element.write(buffer, offset + 4, value);
    offset += 4 + element.size;
  }
  return buffer;
}
