// Events from a member's own log (<workspace>/logs/<m>.log): the zap JSON lines both backends print, our member
// and real etcd 3.4.23 alike (v3rpc/maintenance.go's "starting defragment", "finished defragment", "failed to
// defragment", "successfully sent database snapshot to client"). One MemberLog per member reads what the file
// gained since the last read: woken by the directory's change notifications, and drained on demand before a
// status sample, a start (which may truncate the file) and after an exit, so no line is lost and no timer polls.
import { closeSync, fstatSync, openSync, readSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { LabEventBody } from "../types/event-types.ts";

/** readChunkBytesMax bounds one read of a log (a member's log is capped at 8 MiB anyway). */
const readChunkBytesMax = 1024 * 1024;

/** eventOfLogLine turns one log line of member `member` into its event, or null when it is not one we report. */
export function eventOfLogLine(member: string, line: string): LabEventBody | null {
  // Cheap test first: most lines are about raft and peers.
  if (!line.includes("defragment") && !line.includes("database snapshot to client")) return null;
  let msg: unknown;
  try {
    msg = (JSON.parse(line) as { msg?: unknown }).msg;
  } catch {
    return null;
  }
  switch (msg) {
    case "starting defragment":
      return { type: "defrag.start", member };
    case "finished defragment":
      return { type: "defrag.end", member, ok: true };
    case "failed to defragment":
      return { type: "defrag.end", member, ok: false };
    case "successfully sent database snapshot to client":
      return { type: "snapshot.served", member };
    default:
      return null;
  }
}

/** MemberLog follows one member's log file from where it was when created, surviving truncation. */
export class MemberLog {
  private offset = 0;
  private partial = "";

  constructor(
    readonly member: string,
    readonly file: string,
    private readonly onEvent: (e: LabEventBody) => void,
  ) {}

  /** skipToEnd starts reading at the file's current end (what it holds now is not reported). */
  skipToEnd(): void {
    this.offset = sizeOf(this.file) ?? 0;
    this.partial = "";
  }

  /** drain reads what the file gained and reports its events, synchronously (before a start truncates it). */
  drain(): void {
    let fd: number;
    try {
      fd = openSync(this.file, "r");
    } catch {
      return; // no log yet
    }
    try {
      let size = fstatSync(fd).size;
      if (size < this.offset) {
        // truncated (member-process caps the file when a member starts): read it again from the top
        this.offset = 0;
        this.partial = "";
      }
      while (this.offset < size) {
        const buf = Buffer.alloc(Math.min(readChunkBytesMax, size - this.offset));
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.lines(buf.subarray(0, n).toString("utf8"));
        size = Math.max(size, this.offset);
      }
    } finally {
      closeSync(fd);
    }
  }

  private lines(text: string): void {
    const chunk = this.partial + text;
    const cut = chunk.lastIndexOf("\n");
    if (cut < 0) {
      this.partial = chunk;
      return;
    }
    this.partial = chunk.slice(cut + 1);
    for (const line of chunk.slice(0, cut).split("\n")) {
      const e = eventOfLogLine(this.member, line);
      if (e) this.onEvent(e);
    }
  }
}

/**
 * MemberLogs follows every member log of a cluster, all in one directory: one watcher on the directory wakes
 * the reader of the file that changed. drainAll reads everything now (the session calls it before a sample).
 */
export class MemberLogs {
  private readonly logs = new Map<string, MemberLog>();
  private watcher: FSWatcher | null = null;

  constructor(
    private readonly dir: string,
    private readonly onEvent: (e: LabEventBody) => void,
  ) {}

  /** add follows member `member`'s log `file` (which must be in the directory), from its current end. */
  add(member: string, file: string): MemberLog {
    const existing = this.logs.get(basename(file));
    if (existing) return existing;
    const log = new MemberLog(member, file, (e) => this.onEvent(e));
    log.skipToEnd();
    this.logs.set(basename(file), log);
    this.watch(dirname(file));
    return log;
  }

  /** drain reads member `member`'s log now. */
  drain(member: string): void {
    for (const l of this.logs.values()) if (l.member === member) l.drain();
  }

  /** drainAll reads every log now. */
  drainAll(): void {
    for (const l of this.logs.values()) l.drain();
  }

  /** close stops watching (after a last read). */
  close(): void {
    this.drainAll();
    this.watcher?.close();
    this.watcher = null;
    this.logs.clear();
  }

  private watch(dir: string): void {
    if (this.watcher || dir !== this.dir) return;
    try {
      this.watcher = watch(dir, { persistent: false }, (_kind, name) => {
        const log = name ? this.logs.get(name.toString()) : undefined;
        if (log) log.drain();
        else this.drainAll();
      });
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = null; // drained on demand from then on
      });
    } catch {
      // the directory is not there yet: the next add tries again; until then reads happen on demand
    }
  }
}

function sizeOf(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}
