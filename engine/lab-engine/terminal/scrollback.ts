// The bounded memory of a terminal: the last bytes it printed, replayed to a client that (re)attaches.

/** scrollbackBytesMax bounds one terminal's scrollback (API.md §4.1 promises ≤ 256 KiB). */
export const scrollbackBytesMax = 256 * 1024;

/** Scrollback keeps the most recent output, dropping bytes from the front past its bound. */
export class Scrollback {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private trimmed = false;

  constructor(readonly maxBytes = scrollbackBytesMax) {}

  /** push appends output; an oversized chunk keeps only its tail. */
  push(chunk: Buffer): void {
    let c = chunk;
    if (c.length > this.maxBytes) {
      c = c.subarray(c.length - this.maxBytes);
      this.trimmed = true;
    }
    this.chunks.push(c);
    this.bytes += c.length;
    while (this.bytes > this.maxBytes) {
      this.trimmed = true;
      const first = this.chunks[0] as Buffer;
      const excess = this.bytes - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  /**
   * snapshot returns the kept output. Once something was dropped it starts after the first newline, so a
   * replay never begins inside an escape sequence or a multi-byte character of a cut line.
   */
  snapshot(): Buffer {
    const all = Buffer.concat(this.chunks, this.bytes);
    if (!this.trimmed) return all;
    const nl = all.indexOf(0x0a);
    return nl >= 0 ? all.subarray(nl + 1) : Buffer.alloc(0);
  }

  /** clear forgets everything (the shell was replaced). */
  clear(): void {
    this.chunks = [];
    this.bytes = 0;
    this.trimmed = false;
  }
}
