// `etcdutl snapshot status|restore` (etcdutl/snapshot_command.go): status prints the hash, revision, live
// key count, size and storage version of a snapshot file; restore turns a snapshot into the data dir of a
// member of a new cluster (engine/tools/etcdutl/restore.ts).

import { statSync } from "node:fs";
import { join } from "node:path";
import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goFsError } from "../../../go/go-errors.ts";
import { goPanic } from "../../cobra/go-panic.ts";
import type { CliIo } from "../../cobra/io.ts";
import { snapshotStatus, SnapshotError } from "../../../store/offline.ts";
import { consoleLogger } from "../logger.ts";
import { initPrinterFromCmd } from "../printer.ts";
import { RestoreError, RestorePanic, restoreSnapshot } from "../restore.ts";
import { UrlError } from "../urls.ts";

const defaultName = "default";
const defaultInitialAdvertisePeerURLs = "http://localhost:2380";
/** initialMmapSizeBytes is backend.InitialMmapSize (10 GiB), the --initial-memory-map-size default. */
const initialMmapSizeBytes = 10n * 1024n * 1024n * 1024n;

function status(io: CliIo, c: Command, args: string[]): void {
  if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "snapshot status requires exactly one argument");
  const path = args[0] as string;
  try {
    statSync(path);
  } catch (e) {
    exitWithError(io, ExitCode.error, goFsError(e, "stat", path));
  }
  const printer = initPrinterFromCmd(io, c);
  let s;
  try {
    s = snapshotStatus(path);
  } catch (e) {
    if (e instanceof SnapshotError) exitWithError(io, ExitCode.error, e.message);
    throw e;
  }
  printer.dbStatus(s);
}

async function restore(io: CliIo, c: Command, args: string[]): Promise<void> {
  const f = c.flags();
  if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "snapshot restore requires exactly one argument");
  const revisionBump = f.getBigInt("bump-revision");
  const markCompacted = f.getBool("mark-compacted");
  if ((revisionBump === 0n && markCompacted) || (revisionBump > 0n && !markCompacted)) {
    exitWithError(io, ExitCode.badArgs, "--mark-compacted required if --revision-bump > 0");
  }
  const name = f.getString("name");
  const dataDir = f.getString("data-dir") || `${name}.etcd`;
  const walDirFlag = f.getString("wal-dir");
  const lg = consoleLogger(io);
  try {
    await restoreSnapshot(
      {
        snapshotPath: args[0] as string,
        name,
        outputDataDir: dataDir,
        outputWalDir: walDirFlag || join(dataDir, "member", "wal"),
        walDirFlag,
        peerUrls: f.getString("initial-advertise-peer-urls").split(","),
        initialCluster: f.getString("initial-cluster"),
        initialClusterToken: f.getString("initial-cluster-token"),
        skipHashCheck: f.getBool("skip-hash-check"),
        initialMmapSizeBytes: f.getBigInt("initial-memory-map-size"),
        revisionBump: Number(revisionBump),
        markCompacted,
      },
      lg,
    );
  } catch (e) {
    if (e instanceof RestorePanic) {
      lg.panic("backend/backend.go:205", "failed to open database", { path: e.path, error: e.reason });
      goPanic(io, e.message, [
        [
          "go.etcd.io/etcd/server/v3/storage/backend.newBackend",
          "go.etcd.io/etcd/server/v3@v3.6.14/storage/backend/backend.go:205",
        ],
        [
          "go.etcd.io/etcd/server/v3/storage/backend.NewDefaultBackend",
          "go.etcd.io/etcd/server/v3@v3.6.14/storage/backend/backend.go:183",
        ],
        [
          "go.etcd.io/etcd/etcdutl/v3/snapshot.(*v3Manager).saveDB",
          "go.etcd.io/etcd/etcdutl/v3@v3.6.14/snapshot/v3_snapshot.go:360",
        ],
      ]);
    }
    if (e instanceof RestoreError || e instanceof UrlError) exitWithError(io, ExitCode.error, e.message);
    throw e;
  }
}

/** newSnapshotCommand is `etcdutl snapshot` with its status and restore subcommands. */
export function newSnapshotCommand(io: () => CliIo): Command {
  const cmd = new Command({ use: "snapshot <subcommand>", short: "Manages etcd node snapshots" });
  const restoreCmd = new Command({
    use: "restore <filename> --data-dir {output dir} [options]",
    short: "Restores an etcd member snapshot to an etcd directory",
    run: (c, args) => restore(io(), c, args),
  });
  const rf = restoreCmd.flags();
  rf.string("data-dir", "", "", "Path to the output data directory");
  rf.string("wal-dir", "", "", "Path to the WAL directory (use --data-dir if none given)");
  rf.string(
    "initial-cluster",
    "",
    `${defaultName}=http://localhost:2380`,
    "Initial cluster configuration for restore bootstrap",
  );
  rf.string(
    "initial-cluster-token",
    "",
    "etcd-cluster",
    "Initial cluster token for the etcd cluster during restore bootstrap",
  );
  rf.string(
    "initial-advertise-peer-urls",
    "",
    defaultInitialAdvertisePeerURLs,
    "List of this member's peer URLs to advertise to the rest of the cluster",
  );
  rf.string("name", "", defaultName, "Human-readable name for this member");
  rf.bool(
    "skip-hash-check",
    "",
    false,
    "Ignore snapshot integrity hash value (required if copied from data directory)",
  );
  rf.uint64(
    "initial-memory-map-size",
    "",
    initialMmapSizeBytes,
    "Initial memory map size of the database in bytes. It uses the default value if not defined or defined to 0",
  );
  rf.uint64("bump-revision", "", 0, "How much to increase the latest revision after restore");
  rf.bool(
    "mark-compacted",
    "",
    false,
    "Mark the latest revision after restore as the point of scheduled compaction (required if --bump-revision > 0, disallowed otherwise)",
  );
  cmd.addCommand(
    restoreCmd,
    new Command({
      use: "status <filename>",
      short: "Gets backend snapshot status of a given file",
      long: `When --write-out is set to simple, this command prints out comma-separated status lists for each endpoint.
The items in the lists are hash, revision, total keys, total size.
`,
      run: (c, args) => status(io(), c, args),
    }),
  );
  return cmd;
}
