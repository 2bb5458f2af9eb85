// Our readers against files written by real etcd (3.4.23, /usr/bin/etcd): its WAL segments (framing, CRC
// chain, metadata, hard state, entries, snapshot markers) and its .snap files must read back exactly through
// engine/store/wal, engine/store/raft-snap and the restart bootstrap. Skips loudly without the binary, unless ETCD_LAB_CI=1.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirLayout, restartMemberStorage } from "../datadir/index.ts";
import { decodeMemberMetadata } from "../datadir/member-metadata.ts";
import { Snapshotter } from "../raft-snap/snapshotter.ts";
import { walSnapshotEntries } from "./snapshot-entries.ts";
import { Wal } from "./wal.ts";

const ETCD = "/usr/bin/etcd";
const ETCDCTL = "/usr/bin/etcdctl";
const present = existsSync(ETCD) && existsSync(ETCDCTL);
if (!present) {
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`${ETCD} / ${ETCDCTL} missing and ETCD_LAB_CI=1`);
  console.warn(`\n!!! SKIPPING etcd-interop WAL tests: ${ETCD} or ${ETCDCTL} is not installed !!!\n`);
}

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

let root = "";
let dataDir = "";
let memberIdHex = "";
let clusterIdHex = "";
const PUTS = 35;

describe.runIf(present)("reading a data dir written by real etcd 3.4", () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "etcd-interop-"));
    dataDir = join(root, "r1.etcd");
    const [client, peer] = [await freePort(), await freePort()];
    const endpoint = `http://127.0.0.1:${client}`;
    const etcd = spawn(
      ETCD,
      [
        "--name=r1",
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=r1=http://127.0.0.1:${peer}`,
        "--snapshot-count=10",
        "--logger=zap",
        "--log-outputs=stderr",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    etcd.stderr.setEncoding("utf8").on("data", (d: string) => (log += d));
    const ctl = (...args: string[]): string =>
      execFileSync(ETCDCTL, [`--endpoints=${endpoint}`, "--dial-timeout=5s", ...args], {
        encoding: "utf8",
        env: { ...process.env, ETCDCTL_API: "3" },
      });
    for (let i = 0; ; i++) {
      try {
        ctl("endpoint", "health");
        break;
      } catch {
        if (i > 100) throw new Error(`etcd did not become healthy:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    for (let i = 0; i < PUTS; i++) ctl("put", `key-${i}`, `value-${i}`);
    const status = JSON.parse(ctl("endpoint", "status", "-w", "json")) as {
      Status: { header: { member_id: number | string; cluster_id: number | string } };
    }[];
    // etcdctl prints ids as JSON numbers beyond 2^53; read their digits from the raw text instead.
    const raw = ctl("endpoint", "status", "-w", "json");
    memberIdHex = BigInt(/"member_id":(\d+)/.exec(raw)?.[1] ?? "0").toString(16);
    clusterIdHex = BigInt(/"cluster_id":(\d+)/.exec(raw)?.[1] ?? "0").toString(16);
    expect(status.length).toBe(1);
    etcd.kill("SIGTERM");
    await new Promise((r) => etcd.once("exit", r));
  }, 60_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("has etcd's layout and names we parse", () => {
    const layout = dataDirLayout(dataDir);
    const wals = readdirSync(layout.walDir).filter((n) => n.endsWith(".wal"));
    expect(wals[0]).toBe("0000000000000000-0000000000000000.wal");
    const snaps = readdirSync(layout.snapDir).filter((n) => n.endsWith(".snap"));
    expect(snaps.length).toBeGreaterThan(0);
    expect(snaps[0]).toMatch(/^[0-9a-f]{16}-[0-9a-f]{16}\.snap$/);
  });

  it("starts a WAL with the very bytes our Wal.create writes for the same metadata", () => {
    const theirsPath = join(dataDirLayout(dataDir).walDir, "0000000000000000-0000000000000000.wal");
    const r = Wal.open(dataDirLayout(dataDir).walDir, { index: 0, term: 0 });
    const { metadata } = r.readAll();
    r.close();
    const ours = join(root, "ours");
    Wal.create(ours, metadata, { segmentBytes: 4096 }).close();
    const theirs = readFileSync(theirsPath);
    const mine = readFileSync(join(ours, "0000000000000000-0000000000000000.wal"));
    // Frames 1-3: crc record, metadata record, the initial {0,0} snapshot marker, CRCs chained alike.
    let end = 0;
    for (let i = 0; i < 3; i++) {
      const len = mine.readUInt32LE(end);
      end += 8 + len + ((8 - (len % 8)) % 8);
    }
    expect(theirs.subarray(0, end).toString("hex")).toBe(mine.subarray(0, end).toString("hex"));
  });

  it("reads its WAL from the start: metadata (member and cluster id), hard state, every entry", () => {
    const w = Wal.open(dataDirLayout(dataDir).walDir, { index: 0, term: 0 });
    const c = w.readAll();
    w.close();
    const meta = decodeMemberMetadata(c.metadata);
    expect(meta.nodeId.toString(16)).toBe(memberIdHex);
    expect(meta.clusterId.toString(16)).toBe(clusterIdHex);
    expect(c.entries.length).toBeGreaterThanOrEqual(PUTS);
    c.entries.forEach((e, i) => expect(e.index).toBe(i + 1));
    expect(c.hardState.commit).toBe(c.entries[c.entries.length - 1]?.index);
    const text = c.entries.map((e) => Buffer.from(e.data).toString("latin1")).join("\n");
    for (let i = 0; i < PUTS; i++) expect(text).toContain(`key-${i}`);
  });

  it("finds its snapshot markers and loads the newest .snap (CRC-32C checked) through the restart path", () => {
    const layout = dataDirLayout(dataDir);
    const markers = walSnapshotEntries(layout.walDir);
    expect(markers.length).toBeGreaterThan(1); // the initial {0,0} and at least one from --snapshot-count=10
    const snap = new Snapshotter(layout.snapDir).loadNewestAvailable(markers);
    expect(snap.metadata.index).toBe(markers[markers.length - 1]?.index);
    expect(snap.metadata.confState.voters.map((v) => v.toString(16))).toEqual([memberIdHex]);
    const boot = restartMemberStorage(layout);
    expect(boot.snapshot?.metadata.index).toBe(snap.metadata.index);
    expect(boot.entries[0]?.index).toBe(snap.metadata.index + 1);
    boot.wal.close();
  });
});
