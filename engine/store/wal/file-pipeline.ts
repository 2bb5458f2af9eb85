// The next segment, made ready before it is needed (etcd's filePipeline): a `<n>.tmp` file in the WAL
// directory, already at the full segment size, which a cut fills with its header records and then renames to
// its `<seq>-<index>.wal` name, so a segment never appears under its real name half written.
//
// NB: etcd preallocates with fallocate(2) in a goroutine. Node has no fallocate, so the file is sized with
// ftruncate (sparse: `ls -l` shows 64000000 bytes as with etcd, while the blocks are allocated as records
// land). Measured on this box: fdatasync after appending into a sparse or a zero-filled file costs the same
// (docs/wal.md), and sparse files keep the lab's many small clusters from reserving 64 MB per member.
import { closeSync, ftruncateSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "./fs-modes.ts";

/** ReadySegment is an open, preallocated temp file waiting to become the next segment. */
export interface ReadySegment {
  path: string;
  fd: number;
}

/** FilePipeline keeps one preallocated temp file ready for the next cut. */
export class FilePipeline {
  private count = 0;
  private ready: ReadySegment | undefined;

  constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {
    this.ready = this.alloc();
  }

  /** open hands over the ready file (the caller renames it) and prepares the one after it. */
  open(): ReadySegment {
    const f = this.ready ?? this.alloc();
    this.ready = this.alloc();
    return f;
  }

  /** close removes the file that was prepared but never used. */
  close(): void {
    if (!this.ready) return;
    closeSync(this.ready.fd);
    rmSync(this.ready.path, { force: true });
    this.ready = undefined;
  }

  private alloc(): ReadySegment {
    // count % 2, so the file being prepared is never the one just handed out (etcd's naming).
    const path = join(this.dir, `${this.count % 2}.tmp`);
    this.count++;
    const fd = openSync(path, "w", PRIVATE_FILE_MODE);
    try {
      ftruncateSync(fd, this.segmentBytes);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return { path, fd };
  }
}
