// Crash safety of the backend + state machine on a real file: a child process applies a deterministic WAL
// and is SIGKILLed at random points; after every kill the file must hold exactly the first `ci` entries
// (ci = the consistent index it recorded), equal to a reference replay, and ci never goes backwards.
// ETCD_LAB_STORAGE_CRASH_ROUNDS sets the number of kills (default 20); the seed is printed for replay.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { LmdbBackend } from "../backend/lmdb-backend.ts";
import { binaryString } from "../mvcc/bytes.ts";
import { ManualClock } from "../mvcc/clock.ts";
import { isEtcdError } from "../mvcc/errors.ts";
import { MemoryBackend } from "../mvcc/memory-backend.ts";
import type { Backend } from "../mvcc/backend.ts";
import { StateMachine } from "./state-machine.ts";
import { walEntry } from "./testdata/crash-wal.ts";

const rounds = Number(process.env.ETCD_LAB_STORAGE_CRASH_ROUNDS ?? 20);
const repoRoot = join(import.meta.dirname, "..", "..", "..");
let work = "";
let child = "";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "etcd-lab-crash-"));
  child = join(work, "crash-child.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "testdata", "crash-child.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: child,
    logLevel: "silent",
    // The bundle lives outside the repo: point the native lmdb package at its absolute path.
    plugins: [
      {
        name: "lmdb-absolute",
        setup(b) {
          b.onResolve({ filter: /^lmdb$/ }, () => ({
            path: join(repoRoot, "node_modules", "lmdb", "node-index.js"),
            external: true,
          }));
        },
      },
    ],
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function machine(backend: Backend): StateMachine {
  return new StateMachine({
    backend,
    clock: new ManualClock(0),
    status: { memberId: () => 1n, clusterId: () => 1n, term: () => 1 },
    minLeaseTtlSeconds: 2,
  });
}

function fingerprint(sm: StateMachine) {
  const all = sm.store.range(Uint8Array.of(0), new Uint8Array(0));
  const hash = sm.store.hashByRev(0);
  if (isEtcdError(all) || isEtcdError(hash)) throw new Error("unexpected error");
  return {
    rev: sm.store.rev(),
    compactRev: sm.store.compactRevision(),
    kvs: all.kvs.map((kv) => `${binaryString(kv.key)}@${kv.modRevision}/${kv.version}/${kv.lease}`),
    leases: sm.lessor
      .leases()
      .map((l) => `${l.id}:${l.sortedKeys().join(",")}`)
      .sort(),
    hashKv: hash.hash.hash,
  };
}

/** runUntilKilled starts the child, lets it work for `ms` after it reports its start, then SIGKILLs it. */
function runUntilKilled(dir: string, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dir], { stdio: ["ignore", "pipe", "inherit"], cwd: repoRoot });
    let out = "";
    let timer: NodeJS.Timeout | undefined;
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (timer === undefined && out.includes("start ")) timer = setTimeout(() => p.kill("SIGKILL"), ms);
    });
    p.on("error", reject);
    p.on("exit", (_code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== "SIGKILL") reject(new Error(`child exited without being killed: ${out}`));
      else resolve(Number(/start (\d+)/.exec(out)?.[1] ?? -1));
    });
  });
}

describe("crash safety of backend + state machine", () => {
  it(
    `holds exactly the first consistent-index entries after each of ${rounds} SIGKILLs`,
    { timeout: 600_000 },
    async () => {
      const seed = Number(process.env.ETCD_LAB_SEED ?? Date.now() % 1_000_000);
      const rng = seededRng(seed);
      const dir = join(work, "m1.etcd");
      const reference = machine(new MemoryBackend());
      let applied = 0;
      let lastCi = 0;
      for (let round = 0; round < rounds; round++) {
        const started = await runUntilKilled(dir, 20 + rng.int(400));
        expect(started, `seed ${seed} round ${round}`).toBe(lastCi);
        const backend = LmdbBackend.open({ path: join(dir, "member", "snap", "db") });
        try {
          const sm = machine(backend);
          const ci = sm.consistentIndex().index;
          expect(ci, `seed ${seed} round ${round}: consistent index went backwards`).toBeGreaterThanOrEqual(lastCi);
          while (applied < ci) {
            applied++;
            reference.applyEntryNormal(applied, 1, walEntry(applied));
          }
          expect(fingerprint(sm), `seed ${seed} round ${round} at index ${ci}`).toEqual(fingerprint(reference));
          lastCi = ci;
          if (process.env.ETCD_LAB_DEBUG) console.log(`round ${round}: ci ${ci}`);
        } finally {
          backend.close();
        }
      }
      expect(lastCi).toBeGreaterThan(0);
    },
  );
});
