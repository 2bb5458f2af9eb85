// Creating the data dir tree (etcd's fileutil.TouchDirAll): directories 0700, checked writable, with etcd's
// permission warning for an existing directory that others can read. Files under it are created 0600 by
// the WAL, the snap store and the backend.
import { accessSync, constants, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { nopLogger } from "../../go/zap.ts";
import type { Logger } from "../../go/zap.ts";
import { PRIVATE_DIR_MODE } from "../wal/fs-modes.ts";
import type { DataDirLayout } from "./layout.ts";

/** DataDirError is an operating error about the data dir, with etcd's text. */
export class DataDirError extends Error {
  override name = "DataDirError";
}

/**
 * touchDirAll creates `dir` (and parents) with mode 0700 if missing and checks it is a writable directory.
 * For an existing directory with a looser mode it logs etcd 3.6's "check file permission" warning.
 */
export function touchDirAll(dir: string, logger: Logger = nopLogger): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new DataDirError(`expected "${dir}" to be a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new DataDirError(
      `cannot access data directory: open ${dir}: ${(err as NodeJS.ErrnoException).code ?? "EACCES"}`,
    );
  }
  const mode = st.mode & 0o777;
  if (mode !== PRIVATE_DIR_MODE) {
    logger.warn("fileutil/fileutil.go:56", "check file permission", {
      error: `directory "${dir}" exist, but the permission is "${goFileMode(st.mode)}". The recommended permission is "-rwx------" to prevent possible unprivileged access to the data`,
    });
  }
}

/**
 * ensureLayout creates the data dir, member dir and snap dir (0700) and removes `tmp*` files left in the
 * snap dir by an interrupted receive (etcd's bootstrapSnapshot). The WAL dir is created by Wal.create.
 */
export function ensureLayout(layout: DataDirLayout, logger: Logger = nopLogger): void {
  touchDirAll(layout.dataDir, logger);
  touchDirAll(layout.memberDir, logger);
  touchDirAll(layout.snapDir, logger);
  for (const name of readdirSync(layout.snapDir)) {
    if (name.startsWith("tmp")) rmSync(`${layout.snapDir}/${name}`, { force: true, recursive: true });
  }
}

/** isEmptyDir says whether `dir` is missing or has no entries (restore refuses a non-empty target). */
export function isEmptyDir(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return true;
  }
}

// goFileMode prints a directory mode as Go's os.FileMode.String() does, e.g. "drwxr-xr-x".
function goFileMode(mode: number): string {
  const rwx = "rwxrwxrwx";
  let out = "d";
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? rwx[i] : "-";
  return out;
}
