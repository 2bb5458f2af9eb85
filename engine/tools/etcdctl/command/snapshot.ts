// `etcdctl snapshot save` (snapshot_command.go + client/v3/snapshot): stream the backend from one member
// into <file>.part, check the SHA-256 trailer is where etcd expects it (size % 512 == 32), fsync, rename,
// with the same zap log lines. etcd 3.6's etcdctl has no `snapshot status|restore` (those live in etcdutl):
// asking for them shows this command's help, as cobra does for an unknown subcommand.

import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { humanizeBytes } from "../../../go/humanize.ts";
import { zapJsonLine } from "../../../go/zap-json.ts";
import type { ZapField } from "../../../go/zap-json.ts";
import type { Ctl } from "../global.ts";
import { clientConfigFromCmd } from "../global.ts";
import { goFsError } from "../../../go/go-errors.ts";

/** normalizeExample is etcdctl/util.Normalize: trim, then indent every line by two spaces. */
export function normalizeExample(s: string): string {
  if (s.length === 0) return s;
  return s
    .trim()
    .split("\n")
    .map((l) => `  ${l.trim()}`)
    .join("\n");
}

const snapshotExample = normalizeExample(`
	# Save snapshot to a given file
	etcdctl snapshot save /backup/etcd-snapshot.db

	# Get snapshot from given address and save it to file
	etcdctl snapshot save --endpoints=127.0.0.1:3000 /backup/etcd-snapshot.db 
	
	# Get snapshot from given address with certificates
	etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/etcd/ca.crt --cert=/etc/etcd/etcd.crt --key=/etc/etcd/etcd.key snapshot save /backup/etcd-snapshot.db

	# Get snapshot wih certain user and password
	etcdctl --user=root --password=password123 snapshot save /backup/etcd-snapshot.db

	# Get snapshot from given address with timeout
	etcdctl --endpoints=https://127.0.0.1:2379 --dial-timeout=20s snapshot save /backup/etcd-snapshot.db

	# Save snapshot with desirable time format
	etcdctl snapshot save /mnt/backup/etcd/backup_$(date +%Y%m%d_%H%M%S).db`);

/** hasChecksum is etcd's test for a snapshot trailer: 512 is the smallest disk sector size. */
export function hasChecksum(size: number): boolean {
  return size % 512 === 32;
}

/** newSnapshotCommand is `etcdctl snapshot` (save only in 3.6). */
export function newSnapshotCommand(ctl: Ctl): Command {
  const cmd = new Command({
    use: "snapshot <subcommand>",
    short: "Manages etcd node snapshots",
    example: snapshotExample,
  });
  cmd.addCommand(
    new Command({
      use: "save <filename>",
      short: "Stores an etcd node backend snapshot to a given file",
      example: snapshotExample,
      run: (c, args) => save(ctl, c, args),
    }),
  );
  return cmd;
}

async function save(ctl: Ctl, c: Command, args: string[]): Promise<void> {
  const io = ctl.io;
  if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "snapshot save expects one argument <filename>");
  const log = (msg: string, caller: string, fields: ZapField[], logger?: string) =>
    io.stderr(zapJsonLine({ level: "info", tsMs: io.nowMs(), caller, msg, fields, ...(logger ? { logger } : {}) }));
  const cfg = await clientConfigFromCmd(ctl, c, [
    ["mustClientCfgFromCmd", "global.go:144"],
    ["snapshotSaveCommandFunc", "snapshot_command.go:79"],
  ]);
  const path = args[0] as string;
  const timeoutFlag = c.flags().lookup("command-timeout");
  // Without an explicit --command-timeout the save has no deadline at all (etcd behaviour).
  const abort = new AbortController();
  const timer = timeoutFlag?.changed
    ? setTimeout(
        () => abort.abort(new Error("context deadline exceeded")),
        c.flags().getDuration("command-timeout") / 1e6,
      )
    : undefined;
  const fail = (e: unknown): never => exitWithError(io, ExitCode.interrupted, e);
  if (cfg.endpoints.length !== 1) {
    fail(`snapshot must be requested to one selected node, not multiple [${cfg.endpoints.join(" ")}]`);
  }
  const { newCtlClient, ClientConfigError } = await import("../client.ts");
  let cli;
  try {
    cli = ctl.track(await newCtlClient(io, cfg, { logger: "client" }));
  } catch (e) {
    // mustClientCfgFromCmd: a configuration clientv3 rejects (TLS files) is a bad-arguments exit.
    if (e instanceof ClientConfigError) return exitWithError(io, ExitCode.badArgs, e);
    return fail(e);
  }
  const part = `${path}.part`;
  let fd: number;
  try {
    fd = openSync(part, "w", 0o600);
  } catch (e) {
    return fail(`could not open ${part} (${goFsError(e, "open", part)})`);
  }
  let version = "";
  try {
    log("created temporary db file", "snapshot/v3_snapshot.go:83", [["path", part]]);
    const start = io.monoNs();
    let size = 0;
    let first = true;
    try {
      for await (const resp of cli.snapshot({ signal: abort.signal })) {
        if (first) {
          log("opened snapshot stream; downloading", "v3@v3.6.14/maintenance.go:236", [], "client");
          log("fetching snapshot", "snapshot/v3_snapshot.go:96", [["endpoint", cfg.endpoints[0] as string]]);
          version = resp.version;
          first = false;
        }
        if (resp.blob.length > 0) {
          writeSync(fd, resp.blob);
          size += resp.blob.length;
        }
      }
    } catch (e) {
      if (first) fail(e);
      io.stderr(
        zapJsonLine({
          level: "warn",
          tsMs: io.nowMs(),
          logger: "client",
          caller: "v3@v3.6.14/maintenance.go:304",
          msg: "failed to receive from snapshot stream; closing",
          fields: [["error", errorText(e)]],
        }),
      );
      fail(`could not write snapshot: ${errorText(e)}`);
    }
    log("completed snapshot read; closing", "v3@v3.6.14/maintenance.go:302", [], "client");
    if (!hasChecksum(size)) fail(`sha256 checksum not found [bytes: ${size}]`);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    log("fetched snapshot", "snapshot/v3_snapshot.go:111", [
      ["endpoint", cfg.endpoints[0] as string],
      ["size", humanizeBytes(size)],
      ["took", { durationNs: Number(io.monoNs() - start) }],
      ["etcd-version", version],
    ]);
    try {
      renameSync(part, path);
    } catch (e) {
      fail(`could not rename ${part} to ${path} (${goFsError(e, "rename", part, path)})`);
    }
    log("saved", "snapshot/v3_snapshot.go:121", [["path", path]]);
  } finally {
    if (timer) clearTimeout(timer);
    if (fd >= 0) closeSync(fd);
    rmSync(part, { force: true });
  }
  io.stdout(`Snapshot saved at ${path}\n`);
  if (version !== "") io.stdout(`Server version ${version}\n`);
}
