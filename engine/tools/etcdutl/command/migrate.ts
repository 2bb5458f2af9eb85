// `etcdutl migrate --data-dir <dir> --target-version X.Y [--force]` (etcdutl/migrate_command.go and
// server/storage/schema): move a stopped member's backend between storage versions 3.5 and 3.6. Upgrading
// to 3.6 writes the `storageVersion` meta key; downgrading to 3.5 deletes it, unless the WAL (after the
// newest snapshot) holds entries that etcd 3.5 cannot read — then it fails, or with --force clears or sets
// the key anyway. Every other target is refused with etcd's words.
//
// The WAL's minimal version is computed as etcd's wal.MinimalEtcdVersion decides it for targets >= 3.5:
// only entries annotated newer than 3.5 matter, and the one such request is DowngradeVersionTest (its own
// annotation is 3.6, raised to the version it carries). Older annotations cannot fail a 3.5+ target.

import { statSync } from "node:fs";
import { join } from "node:path";
import {
  readConsistentIndex,
  readStorageVersion,
  bytesOfBinaryString,
  META_KEYS,
  EntryType,
  isSnapError,
  Snapshotter,
  Wal,
  walSnapshotEntries,
} from "../../../store/offline.ts";
import type { LmdbBackend, WalSnapshot } from "../../../store/offline.ts";
import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { goFsError } from "../../../go/go-errors.ts";
import { goQuote, parseIntBig } from "../../../go/go-strconv.ts";
import type { CliIo } from "../../cobra/io.ts";
import { ExitSignal } from "../../cobra/io.ts";
import { InternalRaftRequest } from "../../../store/proto/gen/etcdserverpb.ts";
import type { Logger } from "../../../go/zap.ts";
import { consoleLogger } from "../logger.ts";
import { openBackendOrPanic } from "./backend-file.ts";
import { backendFileName } from "./defrag.ts";

/** SemVer is a major.minor.patch version (go-semver without pre-release parts). */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
}

const v35: SemVer = { major: 3, minor: 5, patch: 0 };
const v36: SemVer = { major: 3, minor: 6, patch: 0 };

/** compareVersions orders versions (negative when a < b). */
export function compareVersions(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

function versionString(v: SemVer): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

/** storageVersionToString prints major.minor. */
function storageVersionToString(v: SemVer): string {
  return `${v.major}.${v.minor}`;
}

/** parseSemVer is go-semver's NewVersion for plain versions; it throws with go-semver's / strconv's text. */
export function parseSemVer(s: string): SemVer {
  const core = s.split("+")[0]?.split("-")[0] ?? "";
  const parts = core.split(".");
  if (parts.length !== 3) throw new Error(`${core} is not in dotted-tri format`);
  const [major, minor, patch] = parts.map((p) => Number(parseIntBig(p, 10, 64)));
  return { major: major as number, minor: minor as number, patch: patch as number };
}

/** parseTargetVersion is migrateOptions.Config's check of --target-version. */
export function parseTargetVersion(target: string): SemVer {
  if ((target.match(/\./g) ?? []).length !== 1) {
    throw new Error(`wrong target version format, expected "X.Y", got ${goQuote(target)}`);
  }
  let v: SemVer;
  try {
    v = parseSemVer(`${target}.0`);
  } catch (e) {
    throw new Error(`failed to parse target version: ${errorText(e)}`);
  }
  if (compareVersions(v, v35) < 0) {
    throw new Error(`target version ${goQuote(storageVersionToString(v))} not supported. Minimal "3.5"`);
  }
  return v;
}

/** walMinimalVersion reads the WAL after the newest snapshot and returns the newest version it needs. */
function walMinimalVersion(dataDir: string): SemVer | undefined {
  const walDir = join(dataDir, "member", "wal");
  let walSnap: WalSnapshot = { index: 0, term: 0 };
  try {
    const snaps = walSnapshotEntries(walDir);
    const snap = new Snapshotter(join(dataDir, "member", "snap")).loadNewestAvailable(snaps);
    walSnap = { index: snap.metadata.index, term: snap.metadata.term };
  } catch (e) {
    if (!isSnapError(e, "no-snapshot")) throw new Error(`failed to get the lastest snapshot: ${errorText(e)}`);
  }
  let wal: Wal;
  try {
    wal = Wal.openForRead(walDir, walSnap);
  } catch (e) {
    throw new Error(`failed to open wal: ${errorText(e)}`);
  }
  let min: SemVer | undefined;
  const raise = (v: SemVer) => {
    if (!min || compareVersions(v, min) > 0) min = v;
  };
  try {
    for (const e of wal.readAll().entries) {
      if (e.type === EntryType.ConfChange) raise({ major: 3, minor: 0, patch: 0 });
      else if (e.type === EntryType.ConfChangeV2) raise({ major: 3, minor: 4, patch: 0 });
      else if (e.data.length > 0) {
        const test = InternalRaftRequest.decode(e.data).downgradeVersionTest;
        if (test) {
          raise(v36);
          raise(parseSemVer(test.ver));
        }
      }
    }
  } catch (e) {
    throw new Error(`failed to read wal: ${errorText(e)}`);
  } finally {
    wal.close();
  }
  return min;
}

function currentVersion(be: LmdbBackend): SemVer | undefined {
  const sv = readStorageVersion(be);
  if (sv !== undefined) return parseSemVer(sv);
  return readConsistentIndex(be).term === 0 ? undefined : v35;
}

function setStorageVersion(be: LmdbBackend, v: SemVer | undefined): void {
  const key = bytesOfBinaryString(META_KEYS.storageVersion);
  if (v) be.put("meta", key, bytesOfBinaryString(versionString({ ...v, patch: 0 })));
  else be.delete("meta", key);
}

/** migrate is migrateCommandFunc: it throws an Error carrying etcd's text. */
export function migrate(io: CliIo, dataDir: string, target: SemVer, force: boolean): void {
  const lg = consoleLogger(io);
  const dbPath = backendFileName(dataDir);
  try {
    statSync(dbPath);
  } catch (e) {
    throw new Error(goFsError(e, "stat", dbPath));
  }
  const be = openBackendOrPanic(io, dbPath, dbPath, lg);
  try {
    const current = currentVersion(be);
    if (!current) {
      lg.error(
        "etcdutl/migrate_command.go:135",
        "failed to detect storage version. Please make sure you are using data dir from etcd v3.5 and older",
      );
      throw new Error("missing term information");
    }
    if (compareVersions(current, target) === 0) {
      lg.info("etcdutl/migrate_command.go:139", "storage version up-to-date", {
        "storage-version": storageVersionToString(current),
      });
      return;
    }
    let walMin: SemVer | undefined;
    try {
      walMin = walMinimalVersion(dataDir);
    } catch (e) {
      lg.error("etcdutl/migrate_command.go:144", "Failed to finalize config", { error: errorText(e) });
      throw e;
    }
    const err = migrateSchema(lg, be, current, target, walMin);
    if (err !== undefined) {
      if (!force) throw new Error(err);
      lg.info("etcdutl/migrate_command.go:153", "normal migrate failed, trying with force", { error: err });
      if (compareVersions(target, v36) < 0) {
        setStorageVersion(be, undefined);
        lg.warn("etcdutl/migrate_command.go:166", "forcefully cleared storage version");
      } else {
        setStorageVersion(be, target);
        lg.warn("etcdutl/migrate_command.go:169", "forcefully set storage version", {
          "storage-version": storageVersionToString(target),
        });
      }
    }
    be.forceCommit();
  } finally {
    be.close();
  }
}

/** migrateSchema is schema.UnsafeMigrate between 3.5 and 3.6; it returns etcd's error text on failure. */
function migrateSchema(
  lg: Logger,
  be: LmdbBackend,
  from: SemVer,
  to: SemVer,
  walMin: SemVer | undefined,
): string | undefined {
  let current: SemVer = { major: from.major, minor: from.minor, patch: 0 };
  const target: SemVer = { major: to.major, minor: to.minor, patch: 0 };
  if (current.major !== target.major) {
    lg.error("schema/migration.go:33", "Changing major storage version is not supported", {
      "storage-version": versionString(current),
      "target-storage-version": versionString(target),
    });
    return "cannot create migration plan: changing major storage version is not supported";
  }
  // The plan: one step per minor version; only 3.6 has schema changes (the storageVersion key).
  const steps: { target: SemVer; upgrade: boolean }[] = [];
  while (compareVersions(current, target) !== 0) {
    const upgrade = current.minor < target.minor;
    const changesOf = upgrade ? { ...current, minor: current.minor + 1 } : current;
    if (compareVersions(changesOf, v36) !== 0) {
      return `cannot create migration plan: version ${goQuote(versionString(changesOf))} is not supported`;
    }
    const next = { ...current, minor: current.minor + (upgrade ? 1 : -1) };
    steps.push({ target: next, upgrade });
    current = next;
  }
  if (compareVersions(target, from) < 0 && walMin && compareVersions(target, walMin) < 0) {
    return `cannot downgrade storage, WAL contains newer entries, as the target version (${versionString(target)}) is lower than the version (${versionString(walMin)}) detected from WAL logs`;
  }
  for (const step of steps) {
    setStorageVersion(be, compareVersions(step.target, v36) >= 0 ? step.target : undefined);
    lg.info("schema/migration.go:65", "updated storage version", { "new-storage-version": versionString(step.target) });
  }
  return undefined;
}

/** newMigrateCommand is `etcdutl migrate`. */
export function newMigrateCommand(io: () => CliIo): Command {
  const cmd = new Command({
    use: "migrate",
    short: "Migrates schema of etcd data dir files to make them compatible with different etcd version",
    run: (c) => {
      const f = c.flags();
      let target: SemVer;
      try {
        target = parseTargetVersion(f.getString("target-version"));
      } catch (e) {
        return exitWithError(io(), ExitCode.badArgs, e);
      }
      try {
        migrate(io(), f.getString("data-dir"), target, f.getBool("force"));
      } catch (e) {
        if (e instanceof ExitSignal) throw e;
        exitWithError(io(), ExitCode.error, e);
      }
    },
  });
  const f = cmd.flags();
  f.string("data-dir", "", "", "Path to the etcd data dir");
  cmd.markFlagRequired("data-dir");
  f.string(
    "target-version",
    "",
    "",
    'Target etcd version to migrate contents of data dir. Minimal value 3.5. Format "X.Y" for example 3.6.',
  );
  cmd.markFlagRequired("target-version");
  f.bool("force", "", false, "Ignore migration failure and forcefully override storage version. Not recommended.");
  return cmd;
}
