import { Readable } from 'node:stream';

/**
 * Answers larger than this are sent as their pieces (PiecedBody); smaller ones are joined into
 * one Buffer, which costs less to send than a stream does.
 */
export const JOIN_BELOW_BYTES = 64 * 1024;

/**
 * A JSON answer sent as the pieces it was put together from, without joining them: a ten-year
 * city history is 3.3 MB, mostly blocks held formatted (derived/history-blocks.ts), and joining
 * them copied 3.3 MB per request into a buffer of its own, which under load kept tens of MB of
 * such copies alive until the collector got to them. The onSend hook (cache/answer-cache.ts) hashes the pieces
 * for the ETag, joins them only to keep the answer in the answer cache, and otherwise sends
 * them as a stream with their Content-Length.
 */
export class PiecedBody extends Readable {
  readonly length: number;
  private sent = false;

  constructor(readonly pieces: readonly Buffer[], length = lengthOf(pieces)) {
    super();
    this.length = length;
  }

  override _read(): void {
    if (this.sent) return;
    this.sent = true;
    for (const piece of this.pieces) if (piece.length > 0) this.push(piece);
    this.push(null);
  }

  joined(): Buffer {
    return Buffer.concat(this.pieces, this.length);
  }
}

/** The pieces of a JSON answer as what the route sends: one Buffer when small, else a PiecedBody. */
export function jsonBody(pieces: readonly Buffer[]): Buffer | PiecedBody {
  const length = lengthOf(pieces);
  return length < JOIN_BELOW_BYTES ? Buffer.concat(pieces, length) : new PiecedBody(pieces, length);
}

function lengthOf(pieces: readonly Buffer[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}
