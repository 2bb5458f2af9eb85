import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StateMachine } from "../apply/state-machine.ts";
import { writeStorageVersion } from "../apply/meta-state.ts";
import { LmdbBackend } from "../backend/lmdb-backend.ts";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { ManualClock } from "../mvcc/clock.ts";
import { ErrCompacted, isEtcdError } from "../mvcc/errors.ts";
import { checkRestoreDataDir, checkRestoreFlags, finishRestoredBackend, prepareRestoredBackend } from "./restore.ts";
import { saveBackendSnapshot } from "./save.ts";
import { snapshotChunks } from "./snapshot-stream.ts";
import { snapshotStatus } from "./status.ts";
import { copyAndVerifySnapshot, hasChecksum } from "./verify.ts";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "etcd-lab-snapshot-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const b = (s: string) => utf8Bytes(s);

function member(dbPath: string) {
  const backend = LmdbBackend.open({ path: dbPath });
  const sm = new StateMachine({
    backend,
    clock: new ManualClock(0),
    status: { memberId: () => 1n, clusterId: () => 2n, term: () => 1 },
    minLeaseTtlSeconds: 2,
  });
  return { backend, sm };
}

/** A member with history: revisions 2..7, one key deleted, storage version set. */
function populated(dir: string) {
  const m = member(join(dir, "member", "snap", "db"));
  m.sm.store.put(b("a"), b("1"));
  m.sm.store.put(b("b"), b("2"));
  m.sm.store.put(b("a"), b("3"));
  m.sm.store.put(b("c"), b("4"));
  m.sm.store.deleteRange(b("c"), undefined);
  m.sm.store.put(b("d"), b("5"));
  m.sm.membership.saveMember({ id: 9n, name: "old", peerURLs: ["http://old:2380"], clientURLs: [], isLearner: false });
  writeStorageVersion(m.backend);
  m.backend.forceCommit();
  return m;
}

describe("snapshot save and status", () => {
  it("saves db + SHA-256 trailer; status reports hash, revision, live keys, size and version", async () => {
    const dir = tmp();
    const { backend } = populated(dir);
    const file = join(dir, "snap.db");
    const size = await saveBackendSnapshot(backend, file, "3.6.0");
    const bytes = readFileSync(file);
    expect(size).toBe(bytes.length);
    expect(hasChecksum(size)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const db = bytes.subarray(0, size - 32);
    expect(bytes.subarray(size - 32)).toEqual(createHash("sha256").update(db).digest());
    const st = snapshotStatus(file);
    expect([st.revision, st.totalKey, st.totalSize, st.version]).toEqual([7, 3, size - 32, "3.6.0"]);
    // The same database copied out of a data dir (no trailer) has the same status.
    backend.close();
    const raw = join(dir, "raw.db");
    copyFileSync(join(dir, "member", "snap", "db"), raw);
    expect(snapshotStatus(raw).hash).toBe(st.hash);
    // A different state hashes differently.
    const { backend: b2 } = member(join(dir, "member", "snap", "db"));
    b2.put("meta", b("extra"), b("x"));
    b2.close();
    copyFileSync(join(dir, "member", "snap", "db"), raw);
    expect(snapshotStatus(raw).hash).not.toBe(st.hash);
  });

  it("streams 32 KiB chunks with remaining_bytes, then the digest", async () => {
    const dir = tmp();
    const { backend } = populated(dir);
    for (let i = 0; i < 300; i++) backend.put("key", b(`big${i}`.padEnd(17, "_")), new Uint8Array(512).fill(i));
    const snap = await backend.snapshot();
    const chunks = [];
    for await (const c of snapshotChunks(snap, "3.6.0")) chunks.push(c);
    const data = chunks.slice(0, -1);
    expect(data.length).toBeGreaterThan(2);
    expect(data.slice(0, -1).every((c) => c.blob.length === 32 * 1024)).toBe(true);
    expect(data[data.length - 1]?.remainingBytes).toBe(0);
    expect(data[0]?.remainingBytes).toBe(snap.sizeBytes - 32 * 1024);
    expect(chunks[chunks.length - 1]?.blob.length).toBe(32);
    expect(chunks.every((c) => c.version === "3.6.0")).toBe(true);
    expect(() => statSync(snap.path)).toThrow();
    backend.close();
  });

  it("reports etcd's errors for missing, tiny and invalid files", () => {
    const dir = tmp();
    expect(() => snapshotStatus(join(dir, "nope.db"))).toThrow(
      `stat ${join(dir, "nope.db")}: no such file or directory`,
    );
    writeFileSync(join(dir, "small.db"), Buffer.alloc(5000, 7));
    expect(() => snapshotStatus(join(dir, "small.db"))).toThrow("file size too small");
    writeFileSync(join(dir, "garbage.db"), Buffer.alloc(20000, 7));
    expect(() => snapshotStatus(join(dir, "garbage.db"))).toThrow("invalid database");
  });
});

describe("snapshot restore (backend half)", () => {
  it("verifies the trailer: missing hash needs --skip-hash-check; a bad digest fails", async () => {
    const dir = tmp();
    const { backend } = populated(dir);
    const file = join(dir, "snap.db");
    await saveBackendSnapshot(backend, file);
    backend.close();
    expect(() => copyAndVerifySnapshot(join(dir, "member", "snap", "db"), join(dir, "out", "db"), false)).toThrow(
      "snapshot missing hash but --skip-hash-check=false",
    );
    copyAndVerifySnapshot(join(dir, "member", "snap", "db"), join(dir, "out", "db"), true);
    const bad = Buffer.from(readFileSync(file));
    bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0xff;
    writeFileSync(join(dir, "bad.db"), bad);
    expect(() => copyAndVerifySnapshot(join(dir, "bad.db"), join(dir, "out2", "db"), false)).toThrow(
      /^expected sha256 \[\d+( \d+){31}\], got \[\d+( \d+){31}\]$/,
    );
  });

  it("rejects bump without mark-compacted (and the reverse) and non-empty data dirs", () => {
    expect(() => checkRestoreFlags(5, false)).toThrow("--mark-compacted required if --revision-bump > 0");
    expect(() => checkRestoreFlags(0, true)).toThrow("--mark-compacted required if --revision-bump > 0");
    expect(() => checkRestoreFlags(0, false)).not.toThrow();
    const dir = tmp();
    expect(() => checkRestoreDataDir(join(dir, "fresh.etcd"))).not.toThrow();
    mkdirSync(join(dir, "used.etcd"));
    writeFileSync(join(dir, "used.etcd", "x"), "");
    expect(() => checkRestoreDataDir(join(dir, "used.etcd"))).toThrow(
      `data-dir "${join(dir, "used.etcd")}" not empty or could not be read`,
    );
  });

  it("restores with --bump-revision N --mark-compacted: old revisions read as compacted, the next write gets latest+N+1", async () => {
    const dir = tmp();
    const { backend } = populated(dir);
    const file = join(dir, "snap.db");
    await saveBackendSnapshot(backend, file);
    backend.close();
    const dbPath = join(dir, "restored.etcd", "member", "snap", "db");
    const latest = prepareRestoredBackend({
      snapshotPath: file,
      dbPath,
      skipHashCheck: false,
      revisionBump: 1000,
      markCompacted: true,
    });
    expect(latest).toBe(1007);
    const m1 = {
      id: 0x41d8b97e89c74911n,
      name: "r1",
      peerURLs: ["http://127.0.0.1:52380"],
      clientURLs: [],
      isLearner: false,
    };
    finishRestoredBackend(dbPath, [m1], { index: 1, term: 1 });
    expect(statSync(dbPath).mode & 0o777).toBe(0o600);

    const { sm, backend: restored } = member(dbPath);
    expect(sm.consistentIndex()).toEqual({ index: 1, term: 1 });
    expect(sm.membership.members()).toEqual([m1]);
    expect(sm.store.rev()).toBe(1007);
    expect(sm.store.compactRevision()).toBe(1007);
    expect(sm.store.range(b("a"), undefined, { rev: 7 })).toBe(ErrCompacted);
    const now = sm.store.range(b("a"), b("z"));
    if (isEtcdError(now)) throw new Error(now.internal);
    expect(now.kvs.map((kv) => [new TextDecoder().decode(kv.key), kv.modRevision])).toEqual([
      ["a", 4],
      ["b", 3],
      ["d", 7],
    ]);
    expect(sm.store.put(b("e"), b("6"))).toBe(1008);
    const ws = sm.store.newWatchStream();
    ws.watch(0, b("a"), undefined, 5);
    while (sm.store.compactStep());
    sm.store.syncWatchers();
    expect(ws.take()).toEqual([{ watchId: 0, events: [], revision: 0, compactRevision: 1007 }]);
    restored.close();
  });

  it("restores without a bump keeping the revision and the old compaction; membership is replaced", async () => {
    const dir = tmp();
    const { backend, sm } = populated(dir);
    sm.store.compact(5);
    while (sm.store.compactStep());
    const file = join(dir, "snap.db");
    await saveBackendSnapshot(backend, file);
    backend.close();
    const dbPath = join(dir, "r.etcd", "member", "snap", "db");
    expect(
      prepareRestoredBackend({
        snapshotPath: file,
        dbPath,
        skipHashCheck: false,
        revisionBump: 0,
        markCompacted: false,
      }),
    ).toBe(7);
    const { sm: r, backend: rb } = member(dbPath);
    expect([r.store.rev(), r.store.compactRevision(), r.membership.members()]).toEqual([7, 5, []]);
    rb.close();
  });
});
