// File modes etcd uses for everything under the data dir (client/pkg/fileutil: PrivateFileMode,
// PrivateDirMode), and fsync of a directory so that a create or rename in it survives a crash.
import { closeSync, fsyncSync, openSync } from "node:fs";

/** PRIVATE_FILE_MODE is 0600: WAL segments, snap files, the backend db. */
export const PRIVATE_FILE_MODE = 0o600;

/** PRIVATE_DIR_MODE is 0700: the data dir, member/, wal/, snap/. */
export const PRIVATE_DIR_MODE = 0o700;

/** fsyncDir makes the entries of `dir` (names created, renamed or removed in it) durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
