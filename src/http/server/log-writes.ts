/**
 * How LineBuffer (log-buffer.ts) hands its bytes to the descriptor: its options, and where a
 * write is cut when other processes write to the same pipe.
 */
export interface LineBufferOptions {
  /** Bytes waiting before a write starts. */
  minBytes?: number;
  /** Bytes kept at most while the destination is busy; lines past it are dropped, and counted. */
  maxBytes?: number;
  /** How long to wait before trying again when the destination is full (EAGAIN on a non-blocking pipe). */
  retryMs?: number;
  /**
   * Bytes a write takes at most, cut at a line's end: PIPE_ATOMIC_BYTES where other processes
   * write to the same pipe (serve's workers), since the system writes that many at once, never
   * split and mixed with theirs; a larger write to a full pipe goes out in pieces that are.
   */
  maxWriteBytes?: number;
}

export const LINE_BUFFER_DEFAULTS: Required<LineBufferOptions> = { minBytes: 64 * 1024, maxBytes: 16 * 1024 * 1024, retryMs: 20, maxWriteBytes: Infinity };

/** PIPE_BUF: what a pipe takes in one piece (4096 on Linux; 512, the least POSIX allows, elsewhere). */
export const PIPE_ATOMIC_BYTES = process.platform === 'linux' ? 4096 : 512;

/** How many of `bytes` (whole lines) one write takes: up to `most`, cut after a line; a line longer than that whole. */
export function lineCut(bytes: Uint8Array, most: number): number {
  if (bytes.length <= most) return bytes.length;
  const end = bytes.lastIndexOf(0x0a, most - 1);
  if (end >= 0) return end + 1;
  const lineEnd = bytes.indexOf(0x0a, most);
  return lineEnd < 0 ? bytes.length : lineEnd + 1;
}
