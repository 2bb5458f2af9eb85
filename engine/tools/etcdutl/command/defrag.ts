// `etcdutl defrag --data-dir <dir>` (etcdutl/defrag_command.go): defragment the backend of a member that is
// not running. etcd blocks on bbolt's file lock while a member holds it, printing once after a second that
// it is waiting; we wait on the member's data-dir lock the same way, then defragment with the backend's own
// log lines on etcdutl's console logger.

import { statSync } from "node:fs";
import { join } from "node:path";
import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { goFsError } from "../../../go/go-errors.ts";
import { goQuote } from "../../../go/go-strconv.ts";
import type { CliIo } from "../../cobra/io.ts";
import { ExitSignal } from "../../cobra/io.ts";
import { DirLockedError, lockDir } from "../../../store/offline.ts";
import type { DirLock } from "../../../store/offline.ts";
import { consoleLogger } from "../logger.ts";
import { openBackendOrPanic } from "./backend-file.ts";

const LOCK_NOTICE_MS = 1000;
const LOCK_POLL_MS = 100;

/** backendFileName is datadir.ToBackendFileName: <data-dir>/member/snap/db. */
export function backendFileName(dataDir: string): string {
  return join(dataDir, "member", "snap", "db");
}

async function lockWaiting(io: CliIo, dataDir: string, dbPath: string): Promise<DirLock> {
  const started = Date.now();
  let noticed = false;
  for (;;) {
    try {
      return await lockDir(dataDir);
    } catch (e) {
      if (!(e instanceof DirLockedError)) throw e;
    }
    if (!noticed && Date.now() - started >= LOCK_NOTICE_MS) {
      noticed = true;
      io.stderr(
        `waiting for etcd to close and release its lock on ${goQuote(dbPath)}. To defrag a running etcd instance, use \`etcdctl defrag\` instead.\n`,
      );
    }
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

/** defragData is etcdutl's DefragData: it throws an Error carrying etcd's text. */
export async function defragData(io: CliIo, dataDir: string): Promise<void> {
  const lg = consoleLogger(io);
  const dbPath = backendFileName(dataDir);
  try {
    statSync(dbPath);
  } catch (e) {
    throw new Error(goFsError(e, "stat", dbPath));
  }
  const lock = await lockWaiting(io, dataDir, dbPath);
  try {
    const be = openBackendOrPanic(io, dbPath, dbPath, lg);
    try {
      await be.defrag();
    } finally {
      be.close();
    }
  } finally {
    await lock.release();
  }
}

/** newDefragCommand is `etcdutl defrag`. */
export function newDefragCommand(io: () => CliIo): Command {
  const cmd = new Command({
    use: "defrag",
    short: "Defragments the storage of the etcd",
    run: async (c) => {
      const dataDir = c.flags().getString("data-dir");
      try {
        await defragData(io(), dataDir);
      } catch (e) {
        if (e instanceof ExitSignal) throw e;
        exitWithError(io(), ExitCode.error, `Failed to defragment etcd data[${dataDir}] (${errorText(e)})`);
      }
    },
  });
  cmd.flags().string("data-dir", "", "", "Required. Defragments a data directory not in use by etcd.");
  cmd.markFlagRequired("data-dir");
  return cmd;
}
