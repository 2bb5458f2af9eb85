// Our etcdutl on real etcd's snapshots (3.4.23, /usr/bin/etcd): `snapshot status` reads the bbolt file, and
// `snapshot restore --bump-revision --mark-compacted` writes a data dir that real etcd boots — same keys, the
// revision bumped, the old revisions compacted. The lab's real backend restores with our etcdutl (etcd 3.4 has
// no etcdutl and its `etcdctl snapshot restore` no --bump-revision). Skips loudly without the binary, unless
// ETCD_LAB_CI=1.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TempDirs, etcdutl } from "./test-fixtures.ts";

const ETCD = "/usr/bin/etcd";
const ETCDCTL = "/usr/bin/etcdctl";
const present = existsSync(ETCD) && existsSync(ETCDCTL);
if (!present) {
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`${ETCD} / ${ETCDCTL} missing and ETCD_LAB_CI=1`);
  console.warn(`\n!!! SKIPPING etcdutl restore tests on real etcd: ${ETCD} or ${ETCDCTL} is not installed !!!\n`);
}

const tmp = new TempDirs();
const running: ChildProcess[] = [];
afterAll(async () => {
  for (const p of running) p.kill("SIGKILL");
  tmp.removeAll();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

/** startEtcd runs real etcd on a data dir and waits until it answers; it returns etcdctl bound to it. */
async function startEtcd(dataDir: string, name: string, client: number, peer: number) {
  const ep = `http://127.0.0.1:${client}`;
  const p = spawn(
    ETCD,
    [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${ep}`,
      `--advertise-client-urls=${ep}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=${name}=http://127.0.0.1:${peer}`,
      "--logger=zap",
      "--log-outputs=stderr",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  running.push(p);
  let log = "";
  p.stderr?.setEncoding("utf8").on("data", (d: string) => (log += d));
  const ctl = (...args: string[]): string =>
    execFileSync(ETCDCTL, [`--endpoints=${ep}`, "--dial-timeout=5s", ...args], {
      encoding: "utf8",
      env: { ...process.env, ETCDCTL_API: "3" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  for (let i = 0; ; i++) {
    try {
      ctl("endpoint", "health");
      break;
    } catch {
      if (i > 150 || p.exitCode !== null) throw new Error(`etcd did not become healthy:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stop = async () => {
    p.kill("SIGTERM");
    if (p.exitCode === null) await new Promise((r) => p.once("exit", r));
  };
  return { ctl, stop };
}

describe.runIf(present)("etcdutl on a snapshot of real etcd 3.4", () => {
  it("reads its status and restores it into a data dir real etcd boots, revision bumped and compacted", async () => {
    const dir = tmp.make();
    const src = await startEtcd(join(dir, "src"), "r1", await freePort(), await freePort());
    for (let i = 0; i < 40; i++) src.ctl("put", `/k/${String(i).padStart(2, "0")}`, `v${i}`);
    src.ctl("put", "/big", "x".repeat(100_000)); // larger than a page: bbolt overflow pages
    src.ctl("del", "/k/00");
    const rev = Number(/"revision":(\d+)/.exec(src.ctl("get", "/k/01", "-w", "json"))?.[1]);
    const snap = join(dir, "snap.db");
    src.ctl("snapshot", "save", snap);
    await src.stop();

    const status = await etcdutl("snapshot", "status", snap, "-w", "json");
    expect(status.code, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ revision: rev, totalKey: 40 });

    const restored = join(dir, "restored");
    const peer = await freePort();
    const r = await etcdutl(
      "snapshot",
      "restore",
      snap,
      "--name=m1",
      `--initial-cluster=m1=http://127.0.0.1:${peer}`,
      "--initial-cluster-token=drill",
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--data-dir=${restored}`,
      "--bump-revision=1000000000",
      "--mark-compacted",
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`"new-latest-revision": ${rev + 1_000_000_000}`);
    expect(readFileSync(join(restored, "member", "snap", "db")).readUInt32LE(16)).toBe(0xed0cdaed); // bbolt

    const back = await startEtcd(restored, "m1", await freePort(), peer);
    try {
      expect(back.ctl("get", "/k/", "--prefix", "--keys-only").split("\n").filter(Boolean)).toHaveLength(39);
      expect(back.ctl("get", "/big", "--print-value-only").trim()).toBe("x".repeat(100_000));
      const header = back.ctl("get", "/k/01", "-w", "json");
      expect(Number(/"revision":(\d+)/.exec(header)?.[1])).toBe(rev + 1_000_000_000);
      expect(() => back.ctl("get", "/k/01", `--rev=${rev}`)).toThrow(/required revision has been compacted/);
      expect(back.ctl("put", "/after", "1").trim()).toBe("OK");
    } finally {
      await back.stop();
    }
  }, 60_000);
});
