import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Registry } from "../metrics/registry.ts";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { describeBackendContract } from "./backend-contract.ts";
import { LmdbBackend } from "./lmdb-backend.ts";
import { LmdbFileError } from "./lmdb-file.ts";
import { DefragAbortedError } from "./defrag-copy.ts";

const dirs: string[] = [];
function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-backend-"));
  dirs.push(dir);
  return join(dir, "member", "snap", "db");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describeBackendContract("LmdbBackend", () => {
  const path = tempDbPath();
  const opened = [LmdbBackend.open({ path })];
  return {
    backend: opened[0] as LmdbBackend,
    crash: () => {
      // A crashed process never commits its buffer: open the file again and forget the old handle.
      const next = LmdbBackend.open({ path });
      opened.push(next);
      return next;
    },
    cleanup: () => {
      for (const be of opened) be.close();
    },
  };
});

const b = (s: string) => utf8Bytes(s);

describe("LmdbBackend", () => {
  it("creates member/snap/db with etcd's permissions (dirs 0700, file 0600)", () => {
    const path = tempDbPath();
    const be = LmdbBackend.open({ path });
    be.close();
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, "..", "..")).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(path, ".."))).toEqual(["db", "db-lock"]);
  });

  it("commits every 100 ms or every 10,000 writes, and records the commit latency", () => {
    const registry = new Registry();
    let now = 1_000;
    const be = LmdbBackend.open({ path: tempDbPath(), registry, nowMs: () => now });
    be.put("key", b("a"), b("1"));
    expect(be.maybeCommit(now + 99)).toBe(false);
    expect(be.pendingWrites).toBe(1);
    now += 100;
    expect(be.maybeCommit(now)).toBe(true);
    expect(be.pendingWrites).toBe(0);
    for (let i = 0; i < 10_000; i++) be.put("key", b(`k${i}`), b("v"));
    expect(be.maybeCommit(now + 1)).toBe(true);
    expect(be.maybeCommit(now + 500)).toBe(false);
    expect(registry.expose()).toContain("etcd_disk_backend_commit_duration_seconds_count 2");
    be.close();
  });

  it("file size equals the reported size and never shrinks until defrag; defrag shrinks it", async () => {
    const registry = new Registry();
    const be = LmdbBackend.open({ path: tempDbPath(), registry });
    const value = new Uint8Array(1000).fill(1);
    for (let i = 0; i < 5000; i++) be.put("key", b(`k${String(i).padStart(6, "0")}`), value);
    be.forceCommit();
    const full = be.sizeBytes();
    expect(be.fileSizeBytes()).toBe(full);
    for (let i = 0; i < 4500; i++) be.delete("key", b(`k${String(i).padStart(6, "0")}`));
    be.forceCommit();
    // Copy-on-write: the deleting commit itself writes new pages, so the file may grow a little, never shrink.
    const afterDelete = be.sizeBytes();
    expect(afterDelete).toBeGreaterThanOrEqual(full);
    expect(afterDelete).toBeLessThan(full * 1.05);
    expect(be.fileSizeBytes()).toBe(afterDelete);
    expect(be.sizeInUseBytes()).toBeLessThan(full / 4);
    // Freed pages are reused once no snapshot needs them (LMDB keeps the previous commit's pages intact,
    // so they become free one commit later): writing a fifth of the data again does not grow the file.
    be.put("meta", b("tick"), b("1"));
    be.forceCommit();
    const beforeRewrite = be.sizeBytes();
    for (let i = 0; i < 1000; i++) be.put("key", b(`n${String(i).padStart(6, "0")}`), value);
    be.forceCommit();
    expect(be.sizeBytes()).toBe(beforeRewrite);

    be.put("key", b("during"), b("defrag"));
    const result = await be.defrag();
    expect(result.sizeBeforeBytes).toBe(beforeRewrite);
    expect(result.sizeAfterBytes).toBeLessThan(afterDelete / 2);
    expect(be.sizeBytes()).toBe(result.sizeAfterBytes);
    expect(be.fileSizeBytes()).toBe(result.sizeAfterBytes);
    expect(be.get("key", b("during"))).toEqual(b("defrag"));
    expect(be.range("key", b("k"), b("l")).length).toBe(500);
    expect(be.range("key", b("n"), b("o")).length).toBe(1000);
    expect(registry.expose()).toContain("etcd_disk_backend_defrag_duration_seconds_count 1");
    expect(registry.expose()).toContain("etcd_disk_defrag_inflight 0");
    expect(readdirSync(join(be.path, "..")).sort()).toEqual(["db", "db-lock"]);
    be.close();
  });

  it("defrag repacks half-empty pages (sparse deletes), as bbolt's re-inserting defrag does", async () => {
    const be = LmdbBackend.open({ path: tempDbPath() });
    const value = new Uint8Array(1000).fill(3);
    const k = (i: number) => b(`k${String(i).padStart(6, "0")}`);
    for (let i = 0; i < 6000; i++) be.put("key", k(i), value);
    be.forceCommit();
    for (let i = 0; i < 6000; i += 2) be.delete("key", k(i));
    be.forceCommit();
    const inUse = be.sizeInUseBytes();
    const result = await be.defrag();
    // 3000 values of ~1 KiB remain: about 3 MB, well below the half-empty pages' footprint.
    expect(result.sizeAfterBytes).toBeLessThan(inUse * 0.75);
    expect(result.sizeAfterBytes).toBeLessThan(3000 * 1400);
    expect(be.range("key", k(0), undefined).length).toBe(3000);
    expect(be.get("key", k(1))).toEqual(value);
    be.close();
  });

  it("closing during a defrag aborts it cleanly; the file is intact", async () => {
    const path = tempDbPath();
    const be = LmdbBackend.open({ path });
    for (let i = 0; i < 25_000; i++) be.put("key", b(`k${String(i).padStart(6, "0")}`), b("v"));
    be.forceCommit();
    const running = be.defrag();
    await new Promise((r) => setImmediate(r));
    be.close();
    await expect(running).rejects.toThrow(DefragAbortedError);
    expect(readdirSync(join(path, "..")).sort()).toEqual(["db", "db-lock"]);
    const again = LmdbBackend.open({ path });
    expect(again.range("key", b("k"), b("l")).length).toBe(25_000);
    again.close();
  });

  it("snapshots a consistent copy at one point in time while writes go on", async () => {
    const be = LmdbBackend.open({ path: tempDbPath() });
    be.put("key", b("before"), b("1"));
    const snap = await be.snapshot();
    be.put("key", b("after"), b("2"));
    be.forceCommit();
    expect(snap.sizeBytes % 4096).toBe(0);
    let total = 0;
    for await (const chunk of snap.chunks(8192)) {
      expect(chunk.length).toBeLessThanOrEqual(8192);
      total += chunk.length;
    }
    expect(total).toBe(snap.sizeBytes);
    const copy = LmdbBackend.open({ path: snap.path });
    expect(copy.get("key", b("before"))).toEqual(b("1"));
    expect(copy.get("key", b("after"))).toBeUndefined();
    copy.close();
    snap.release();
    expect(() => statSync(snap.path)).toThrow();
    be.close();
  });

  it("replaces its file with a received snapshot and drops uncommitted writes", async () => {
    const leader = LmdbBackend.open({ path: tempDbPath() });
    leader.put("key", b("from-leader"), b("1"));
    const snap = await leader.snapshot();
    const follower = LmdbBackend.open({ path: tempDbPath() });
    follower.put("key", b("stale"), b("x"));
    follower.replaceWith(snap.path);
    expect(follower.get("key", b("from-leader"))).toEqual(b("1"));
    expect(follower.get("key", b("stale"))).toBeUndefined();
    follower.close();
    leader.close();
  });

  it("refuses a file that is not an LMDB database instead of crashing, and keeps its own file", () => {
    const path = tempDbPath();
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, Buffer.alloc(20_000, 7));
    expect(() => LmdbBackend.open({ path })).toThrow(LmdbFileError);
    const be = LmdbBackend.open({ path: tempDbPath() });
    be.put("key", b("k"), b("v"));
    expect(() => be.replaceWith(path)).toThrow(LmdbFileError);
    expect(be.get("key", b("k"))).toEqual(b("v"));
    be.close();
  });
});
