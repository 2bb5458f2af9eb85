// One member per data dir: an exclusive lock that the kernel drops when the holder dies, however it dies
// (SIGKILL included), so a crashed member never leaves a stale lock behind.
//
// etcd gets this from flock(2)/OFD locks on its WAL segments and bbolt's db file. Node has no file locks,
// so on Linux the lock is a listening socket in the abstract unix namespace whose name is derived from the
// directory's real path: binding is atomic, a second bind fails with EADDRINUSE, and no file appears in
// the data dir. Elsewhere it falls back to an O_EXCL pid file `<dir>/.etcd-lab.lock` whose holder is checked
// for liveness (stale after a crash, taken over).
// NB: etcd blocks forever on a second member's bbolt flock; we refuse at once with a clear error instead.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "../wal/fs-modes.ts";

/** LOCKED_TEXT is etcd's text for a lock held by someone else (fileutil.ErrLocked). */
export const LOCKED_TEXT = "fileutil: file already locked";

/** DirLockedError says another process holds the lock on a directory. */
export class DirLockedError extends Error {
  override name = "DirLockedError";
  constructor(readonly dir: string) {
    super(`cannot lock directory "${dir}": ${LOCKED_TEXT} (is another member using it?)`);
  }
}

/** DirLock is a held lock; release() drops it (process exit drops it too). */
export interface DirLock {
  readonly dir: string;
  release(): Promise<void>;
}

/** lockDir takes the exclusive lock on `dir` (which must exist) or throws DirLockedError. */
export async function lockDir(dir: string): Promise<DirLock> {
  return process.platform === "linux" ? lockAbstractSocket(dir, realpathSync(dir)) : lockDirWithPidFile(dir);
}

/** lockName is the abstract socket name for a directory (a hash keeps it under the 107-byte limit). */
export function lockName(realDir: string): string {
  return `\0etcd-lab-dir-lock-${createHash("sha256").update(realDir).digest("hex")}`;
}

function lockAbstractSocket(dir: string, real: string): Promise<DirLock> {
  return new Promise((resolve, reject) => {
    const server: Server = createServer((sock) => sock.end(`${process.pid}\n`));
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(err.code === "EADDRINUSE" ? new DirLockedError(dir) : err);
    });
    server.listen(lockName(real), () => {
      server.unref(); // the lock must not keep the process alive
      resolve({
        dir,
        release: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * lockDirWithPidFile is the lock where there are no abstract sockets: `<dir>/.etcd-lab.lock` created with
 * O_EXCL and holding the owner's pid; a file whose owner is dead is stale and taken over.
 */
export async function lockDirWithPidFile(dir: string): Promise<DirLock> {
  const path = join(realpathSync(dir), ".etcd-lab.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", PRIVATE_FILE_MODE);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return { dir, release: async () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new DirLockedError(dir);
      rmSync(path, { force: true }); // stale: its holder is gone
    }
  }
  throw new DirLockedError(dir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
