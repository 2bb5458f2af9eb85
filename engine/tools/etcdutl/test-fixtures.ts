// Shared fixtures for the etcdutl tests: a member backend with some history, a snapshot of it, an
// in-process run of etcdutl, and the normalisation of log timestamps.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  writeStorageVersion,
  StateMachine,
  LmdbBackend,
  utf8Bytes,
  ManualClock,
  saveBackendSnapshot,
} from "../../store/offline.ts";
import { memoryIo } from "../cobra/testing.ts";
import { runEtcdutl } from "./etcdutl.ts";

/** TempDirs hands out scratch directories and removes them all at once. */
export class TempDirs {
  private readonly dirs: string[] = [];

  make(): string {
    const d = mkdtempSync(join(tmpdir(), "etcdutl-test-"));
    this.dirs.push(d);
    return d;
  }

  removeAll(): void {
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** openMember opens a member's state machine over the backend file at dbPath. */
export function openMember(dbPath: string): { backend: LmdbBackend; sm: StateMachine } {
  const backend = LmdbBackend.open({ path: dbPath });
  const sm = new StateMachine({
    backend,
    clock: new ManualClock(0),
    status: { memberId: () => 1n, clusterId: () => 2n, term: () => 1 },
    minLeaseTtlSeconds: 2,
  });
  return { backend, sm };
}

/**
 * populatedSnapshot writes a member db under `dir` (revisions 2..7: a, b, a again, c, c deleted, d), with an
 * old member and storage version 3.6.0, and saves a snapshot of it to `<dir>/snap.db`. It returns the paths.
 */
export async function populatedSnapshot(dir: string): Promise<{ dbPath: string; snapPath: string }> {
  const dbPath = join(dir, "member", "snap", "db");
  const { backend, sm } = openMember(dbPath);
  const b = utf8Bytes;
  sm.store.put(b("a"), b("1"));
  sm.store.put(b("b"), b("2"));
  sm.store.put(b("a"), b("3"));
  sm.store.put(b("c"), b("4"));
  sm.store.deleteRange(b("c"), undefined);
  sm.store.put(b("d"), b("5"));
  sm.membership.saveMember({ id: 9n, name: "old", peerURLs: ["http://old:2380"], clientURLs: [], isLearner: false });
  writeStorageVersion(backend);
  backend.forceCommit();
  const snapPath = join(dir, "snap.db");
  await saveBackendSnapshot(backend, snapPath, "3.6.0");
  backend.close();
  return { dbPath, snapPath };
}

/** UtlRun is the outcome of one in-process etcdutl run. */
export interface UtlRun {
  code: number;
  out: string;
  err: string;
}

/** etcdutl runs the tool in-process with the given arguments. */
export async function etcdutl(...args: string[]): Promise<UtlRun> {
  const io = memoryIo({ argv: ["etcdutl", ...args] });
  const code = await runEtcdutl(io, args);
  return { code, out: io.out(), err: io.err() };
}

/** stripTimes replaces the RFC 3339 timestamps at the start of console log lines with <TS>. */
export function stripTimes(s: string): string {
  return s.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)\t/gm, "<TS>\t");
}
