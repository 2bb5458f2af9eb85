// The data dir layout, as etcd 3.6 has it (server/storage/datadir): <data-dir>/member/{wal,snap}, the
// backend at member/snap/db, and the WAL somewhere else when --wal-dir is given.
import { join } from "node:path";

/** DataDirLayout is every path a member uses under its data dir. */
export interface DataDirLayout {
  dataDir: string;
  memberDir: string;
  /** walDir is member/wal, or --wal-dir when set ("dedicated" WAL dir). */
  walDir: string;
  snapDir: string;
  /** backendPath is member/snap/db, the backend's single file. */
  backendPath: string;
  /** walDirDedicated says whether --wal-dir moved the WAL out of the member dir. */
  walDirDedicated: boolean;
}

/** dataDirLayout computes the layout for `dataDir` and an optional `--wal-dir`. */
export function dataDirLayout(dataDir: string, walDirFlag = ""): DataDirLayout {
  const memberDir = join(dataDir, "member");
  const snapDir = join(memberDir, "snap");
  return {
    dataDir,
    memberDir,
    walDir: walDirFlag !== "" ? walDirFlag : join(memberDir, "wal"),
    snapDir,
    backendPath: join(snapDir, "db"),
    walDirDedicated: walDirFlag !== "",
  };
}
