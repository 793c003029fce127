import { createHash, hash } from 'node:crypto';
import { PiecedBody } from '../representation/pieced-body.ts';

/** An answer's ETag: the first 27 characters of the SHA-256 of its bytes, base64url, quoted. */
export function etagOf(body: string | Buffer | PiecedBody): string {
  let digest: string;
  if (body instanceof PiecedBody) {
    const hasher = createHash('sha256');
    for (const piece of body.pieces) hasher.update(piece);
    digest = hasher.digest('base64url');
  } else {
    // One call, without a Hash object: most answers are a single small body.
    digest = hash('sha256', body, 'base64url');
  }
  return quotedEtag(digest);
}

/** An ETag as every answer's is written: the first 27 characters of a base64url SHA-256, quoted. */
export function quotedEtag(digest: string): string {
  return `"${digest.slice(0, 27)}"`;
}

/** Whether If-None-Match names this ETag (or is `*`): the answer is then a 304. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
