// Restore of a 3-member cluster from a ~30 MB snapshot (issue 15's closing-note number), same run, same machine:
//   - our etcdutl on a snapshot of our member (LMDB), plain and with --bump-revision --mark-compacted;
//   - our etcdutl on a snapshot of real etcd 3.4.23 (bbolt), likewise;
//   - real etcd 3.4's `etcdctl snapshot restore` on the same bbolt snapshot (3.4 has no etcdutl and no bump).
// Each figure is the wall time of three restores (m1, m2, m3) run one after the other, as the drill does; best
// of BENCH_RESTORE_ROUNDS rounds (default 3). BENCH_RESTORE_MB sets the data written (default 30).
// Run: npx tsx bench/restore.ts   (needs `node scripts/build.mjs` and /usr/bin/etcd, /usr/bin/etcdctl)
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../engine/store/client/index.ts";
import { freePorts } from "../engine/lab-engine/cluster/ports.ts";

const root = join(import.meta.dirname, "..");
const ourEtcd = join(root, "bin", "etcd");
const ourEtcdctl = join(root, "bin", "etcdctl");
const ourEtcdutl = join(root, "bin", "etcdutl");
const mb = Number(process.env["BENCH_RESTORE_MB"] ?? 30);
const rounds = Number(process.env["BENCH_RESTORE_ROUNDS"] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "bench-restore-"));

async function snapshotOf(binary: string, name: string): Promise<string> {
  const [client, peer] = await freePorts(2);
  const ep = `127.0.0.1:${client}`;
  const p: ChildProcess = spawn(
    binary,
    [
      `--name=${name}`,
      `--data-dir=${join(dir, name)}`,
      `--listen-client-urls=http://${ep}`,
      `--advertise-client-urls=http://${ep}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=${name}=http://127.0.0.1:${peer}`,
      "--quota-backend-bytes=4294967296",
      "--logger=zap",
      "--log-outputs=stderr",
    ],
    { stdio: "ignore" },
  );
  const c = new EtcdClient({ endpoints: [ep], dialTimeoutMs: 5000 });
  try {
    for (let i = 0; ; i++) {
      try {
        await c.put({ key: Buffer.from("/bench/ready"), value: Buffer.from("1") }, { timeoutMs: 1000 });
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const value = Buffer.alloc(8192, "x");
    const n = Math.ceil((mb * 1024 * 1024) / value.length);
    for (let i = 0; i < n; i += 32) {
      await Promise.all(
        Array.from({ length: Math.min(32, n - i) }, (_, k) =>
          c.put({ key: Buffer.from(`/registry/configmaps/bench/cm-${i + k}`), value }),
        ),
      );
    }
    const file = join(dir, `${name}.snapshot.db`);
    const r = spawnSync(ourEtcdctl, [`--endpoints=${ep}`, "snapshot", "save", file], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    return file;
  } finally {
    c.close();
    p.kill("SIGKILL");
  }
}

function restoreAll(label: string, cmd: (m: string, out: string) => [string, string[], NodeJS.ProcessEnv?]): number {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const base = mkdtempSync(join(dir, "restore-"));
    const t = process.hrtime.bigint();
    for (const m of ["m1", "m2", "m3"]) {
      const [bin, args, env] = cmd(m, join(base, m));
      const r = spawnSync(bin, args, { encoding: "utf8", env: { ...process.env, ...env } });
      if (r.status !== 0) throw new Error(`${label}: ${r.stderr}`);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
    rmSync(base, { recursive: true, force: true });
  }
  console.log(`${label.padEnd(62)} ${(best / 1000).toFixed(2)} s`);
  return best;
}

const cluster = "m1=http://127.0.0.1:2380,m2=http://127.0.0.1:2381,m3=http://127.0.0.1:2382";
const peerOf = (m: string) => `http://127.0.0.1:${2379 + Number(m.slice(1))}`;
const flags = (snap: string, m: string, out: string, bump: boolean) => [
  "snapshot",
  "restore",
  snap,
  `--name=${m}`,
  `--initial-cluster=${cluster}`,
  "--initial-cluster-token=bench",
  `--initial-advertise-peer-urls=${peerOf(m)}`,
  `--data-dir=${out}`,
  ...(bump ? ["--bump-revision=1000000000", "--mark-compacted"] : []),
];

try {
  const ours = await snapshotOf(ourEtcd, "ours");
  const real = await snapshotOf("/usr/bin/etcd", "real");
  const size = (f: string) => `${(statSync(f).size / 1e6).toFixed(1)} MB`;
  console.log(`snapshots: ours (LMDB) ${size(ours)}, real etcd 3.4.23 (bbolt) ${size(real)}; best of ${rounds}`);
  restoreAll("our etcdutl, our snapshot", (m, out) => [ourEtcdutl, flags(ours, m, out, false)]);
  restoreAll("our etcdutl, our snapshot, --bump-revision --mark-compacted", (m, out) => [
    ourEtcdutl,
    flags(ours, m, out, true),
  ]);
  restoreAll("our etcdutl, etcd 3.4's snapshot", (m, out) => [ourEtcdutl, flags(real, m, out, false)]);
  restoreAll("our etcdutl, etcd 3.4's snapshot, --bump-revision --mark-compacted", (m, out) => [
    ourEtcdutl,
    flags(real, m, out, true),
  ]);
  restoreAll("etcd 3.4's etcdctl snapshot restore, its snapshot", (m, out) => [
    "/usr/bin/etcdctl",
    flags(real, m, out, false),
    { ETCDCTL_API: "3" },
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
