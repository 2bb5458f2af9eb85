// A windowed positional reader over one segment file: the decoder asks for byte ranges, and the reader serves
// them from a 1 MiB window so that small records do not cost a syscall each. Preallocated segments are 64 MB
// of mostly zeros; the decoder stops at the first zero length word, so only the written part is read.
import { fstatSync, readSync } from "node:fs";

/** READ_WINDOW_BYTES is how much the reader fetches at a time. */
export const READ_WINDOW_BYTES = 1 << 20;

/** SegmentReader reads byte ranges of one open segment file. */
export class SegmentReader {
  /** size is the file's length in bytes when it was opened. */
  readonly size: number;
  private buf = Buffer.alloc(0);
  private windowStart = 0;
  private windowBytes = 0;

  constructor(
    /** name is the file's base name (for error messages). */
    readonly name: string,
    private readonly fd: number,
  ) {
    this.size = fstatSync(fd).size;
  }

  /**
   * bytes returns `len` bytes at `off`, or fewer when the file ends first. The result shares memory with
   * the window: copy it before the next call if it must outlive that.
   */
  bytes(off: number, len: number): Buffer {
    const want = Math.max(0, Math.min(len, this.size - off));
    if (off >= this.windowStart && off + want <= this.windowStart + this.windowBytes) {
      const at = off - this.windowStart;
      return this.buf.subarray(at, at + want);
    }
    const fetch = Math.min(Math.max(want, READ_WINDOW_BYTES), this.size - off);
    if (this.buf.length < fetch) this.buf = Buffer.allocUnsafe(fetch);
    let got = 0;
    while (got < fetch) {
      const n = readSync(this.fd, this.buf, got, fetch - got, off + got);
      if (n === 0) break;
      got += n;
    }
    this.windowStart = off;
    this.windowBytes = got;
    return this.buf.subarray(0, Math.min(want, got));
  }
}
