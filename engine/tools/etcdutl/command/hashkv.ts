// `etcdutl hashkv <filename>` (etcdutl/hashkv_command.go): open a backend file, restore the MVCC store from
// it and print HashKV at --rev (0: the latest revision) with the revisions it covers. The file is read
// through a private copy (an LMDB environment writes a lock file beside the file it opens).

import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEtcdError, KvStore } from "../../../store/offline.ts";
import type { LmdbBackend } from "../../../store/offline.ts";
import { Command, exactArgs } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goFsError } from "../../../go/go-errors.ts";
import type { CliIo } from "../../cobra/io.ts";
import type { DbHashKV } from "../printer.ts";
import { initPrinterFromCmd } from "../printer.ts";
import { openBackendOrPanic } from "./backend-file.ts";

/** calculateHashKV hashes the key space of the backend file at `dbPath` at revision `rev`. */
export function calculateHashKV(io: CliIo, dbPath: string, rev: number): DbHashKV | Error {
  try {
    statSync(dbPath);
  } catch (e) {
    return new Error(goFsError(e, "stat", dbPath));
  }
  const dir = mkdtempSync(join(tmpdir(), "etcdutl-hashkv-"));
  try {
    const copy = join(dir, "db");
    copyFileSync(dbPath, copy);
    const backend: LmdbBackend = openBackendOrPanic(io, copy, dbPath);
    try {
      const r = new KvStore({ backend }).hashByRev(rev);
      if (isEtcdError(r)) return new Error(r.internal);
      return { hash: r.hash.hash, hashRevision: r.hash.revision, compactRevision: r.hash.compactRevision };
    } finally {
      backend.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** newHashKVCommand is `etcdutl hashkv`. */
export function newHashKVCommand(io: () => CliIo): Command {
  const cmd = new Command({
    use: "hashkv <filename>",
    short: "Prints the KV history hash of a given file",
    args: exactArgs(1),
    run: (c, args) => {
      const printer = initPrinterFromCmd(io(), c);
      const r = calculateHashKV(io(), args[0] as string, Number(c.flags().getBigInt("rev")));
      if (r instanceof Error) exitWithError(io(), ExitCode.error, r);
      printer.dbHashKV(r);
    },
  });
  cmd.flags().int64("rev", "", 0, "maximum revision to hash (default: latest revision)");
  return cmd;
}
