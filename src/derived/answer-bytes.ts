/**
 * A derived answer kept as the bytes its route sends (docs/DERIVED.md, "Answers as bytes"): worked
 * out and written on the worker, so the serving thread neither builds the records nor serialises
 * them, and keeps one buffer per answer instead of an object graph for the collector to trace.
 */
import { hash } from 'node:crypto';

/** An answer's bytes and the base64url SHA-256 of them (the ETag's digest: http/cache/etag.ts quotedEtag). */
export interface AnswerBytes {
  bytes: Uint8Array;
  digest: string;
}

/**
 * The answer of `bytes`, in a buffer of its own: a short Buffer (Buffer.from of a string under 4 KB) is a slice of
 * Node's shared 8 KB pool, and the structured clone to the serving thread copies a view's whole buffer, so each
 * kept cycle answer would hold 8 KB there.
 */
export function answerOf(bytes: Buffer): AnswerBytes {
  const own = bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return { bytes: own, digest: hash('sha256', own, 'base64url') };
}

/** The answer's bytes as a Buffer over the same memory (a Uint8Array after the structured clone from the worker). */
export function answerBuffer(answer: AnswerBytes): Buffer {
  const { bytes } = answer;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
