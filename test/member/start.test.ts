// How a member of ours starts and fails to start, as etcd 3.6 logs it: the data dir identified first
// ("Initialize and start etcd server" / "server has already been initialized"; then "starting local member"
// or "restarting local member", and "opened backend db"), the peer and client URLs bound
// before the server exists (a taken port fails the start with Go's bind error and leaves no data dir behind),
// and --log-outputs naming a file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../engine/lab-engine/cluster/ports.ts";
import { TestCluster, memberCommand } from "./harness.ts";

let dir: string;
let holder: Server;
let takenPort: number;
let cluster: TestCluster | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "member-start-"));
  holder = createServer((conn) => conn.destroy());
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  takenPort = (holder.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await cluster?.destroy();
  cluster = undefined;
});

interface LogLine {
  level: string;
  caller: string;
  msg: string;
  [field: string]: unknown;
}

/** runMember runs our member until it exits (it must fail) and returns its exit code, stderr and log file. */
function runMember(name: string, client: number, peer: number, extra: string[] = []) {
  const [cmd, prefix] = memberCommand("ours");
  const logPath = join(dir, `${name}.log`);
  const peerUrl = `http://127.0.0.1:${peer}`;
  const r = spawnSync(
    cmd,
    [
      ...prefix,
      `--name=${name}`,
      `--data-dir=${join(dir, `${name}.etcd`)}`,
      `--listen-client-urls=http://127.0.0.1:${client}`,
      `--advertise-client-urls=http://127.0.0.1:${client}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${name}=${peerUrl}`,
      `--log-outputs=${logPath}`,
      ...extra,
    ],
    { encoding: "utf8", timeout: 20_000 },
  );
  const lines = existsSync(logPath)
    ? readFileSync(logPath, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as LogLine)
    : [];
  return { status: r.status, stderr: r.stderr, lines, dataDir: join(dir, `${name}.etcd`) };
}

describe("a member whose port is taken", () => {
  it("fails on the client port before it creates its data dir, as etcd does", async () => {
    const [peer] = (await freePorts(1)) as [number];
    const r = runMember("client-taken", takenPort, peer);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("");
    expect(existsSync(r.dataDir)).toBe(false);
    expect(r.lines.map((l) => [l.level, l.caller, l.msg])).toEqual([
      ["info", "etcdmain/etcd.go:64", "Running: "],
      ["info", "etcdmain/etcd.go:124", "Initialize and start etcd server"],
      ["info", "embed/etcd.go:138", "configuring peer listeners"],
      ["info", "embed/etcd.go:146", "configuring client listeners"],
      ["info", "embed/etcd.go:426", "closing etcd server"],
      ["info", "embed/etcd.go:428", "closed etcd server"],
      ["fatal", "etcdmain/etcd.go:183", "discovery failed"],
    ]);
    const fatal = r.lines.at(-1);
    expect(fatal?.["error"]).toBe(`listen tcp 127.0.0.1:${takenPort}: bind: address already in use`);
    expect(String(fatal?.["stacktrace"])).toMatch(/^go\.etcd\.io\/etcd\/server\/v3\/etcdmain\.startEtcdOrProxyV2\n\t/);
    expect(r.lines[1]).toMatchObject({ "data-dir": r.dataDir, "dir-type": "empty" });
  });

  it("fails on the peer port before it binds the client port", async () => {
    const [client] = (await freePorts(1)) as [number];
    const r = runMember("peer-taken", client, takenPort);
    expect(r.status).toBe(1);
    expect(existsSync(r.dataDir)).toBe(false);
    expect(r.lines.map((l) => l.msg)).not.toContain("configuring client listeners");
    expect(r.lines.at(-1)).toMatchObject({
      level: "fatal",
      msg: "discovery failed",
      error: `listen tcp 127.0.0.1:${takenPort}: bind: address already in use`,
    });
  });

  it("fails on the metrics port after it started, and stops again", async () => {
    const [client, peer] = (await freePorts(2)) as [number, number];
    const r = runMember("metrics-taken", client, peer, [`--listen-metrics-urls=http://127.0.0.1:${takenPort}`]);
    expect(r.status).toBe(1);
    const msgs = r.lines.map((l) => l.msg);
    expect(msgs).toContain("starting an etcd server");
    expect(msgs.indexOf("closing etcd server")).toBeGreaterThan(msgs.indexOf("starting an etcd server"));
    expect(msgs.slice(-2)).toEqual(["closed etcd server", "discovery failed"]);
    expect(r.lines.at(-1)?.["error"]).toBe(`listen tcp 127.0.0.1:${takenPort}: bind: address already in use`);
  });
});

describe("--log-outputs", () => {
  it("refuses a file it cannot open with zap's error, and a second output next to default", () => {
    const [cmd, prefix] = memberCommand("ours");
    const missing = join(dir, "no-such-dir", "m.log");
    const bad = spawnSync(cmd, [...prefix, `--data-dir=${join(dir, "x.etcd")}`, `--log-outputs=${missing}`], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    const warn = JSON.parse(bad.stderr.trim().split("\n").at(-1) ?? "{}") as LogLine;
    expect(warn).toMatchObject({
      level: "warn",
      msg: "failed to verify flags",
      error: `open sink "${missing}": open ${missing}: no such file or directory`,
    });
    const both = spawnSync(cmd, [...prefix, `--data-dir=${join(dir, "x.etcd")}`, "--log-outputs=default,stdout"], {
      encoding: "utf8",
    });
    expect(both.status).toBe(1);
    expect(both.stderr).toContain('"error":"multi logoutput for \\"default\\" is not supported yet"');
  });
});

describe("a member started again on its data dir", () => {
  it("logs that the server has already been initialized", async () => {
    const c = (cluster = await TestCluster.start({ kind: "ours", size: 1 }));
    expect(c.log("m1")).toMatch(/"msg":"Initialize and start etcd server","data-dir":"[^"]+","dir-type":"empty"/);
    await c.signal("m1", "SIGTERM");
    // etcd's shutdown: the server stops, then its peer listeners; then the process dies of the signal.
    expect(c.member("m1").proc?.signalCode).toBe("SIGTERM");
    const address = `127.0.0.1:${c.member("m1").peerPort}`;
    const shutdown = c
      .log("m1")
      .split('"msg":"received signal; shutting down"')[1]
      ?.match(
        /"msg":"(closing etcd server|stopping serving peer traffic|stopped serving peer traffic|closed etcd server)"(,"address":"[^"]+")?/g,
      );
    expect(shutdown).toEqual([
      '"msg":"closing etcd server"',
      `"msg":"stopping serving peer traffic","address":"${address}"`,
      `"msg":"stopped serving peer traffic","address":"${address}"`,
      '"msg":"closed etcd server"',
    ]);
    expect(c.log("m1")).toContain(`"msg":"serving peer traffic","address":"${address}"`);
    c.restart("m1");
    await c.waitHealthy("m1", 20_000);
    const [first, second] = c.log("m1").split('"msg":"server has already been initialized"') as [string, string];
    expect(second).toMatch(/^,"data-dir":"[^"]+","dir-type":"member"/);
    // A new member: "starting local member"; a restart: "restarting local member" (etcd 3.6's bootstrap).
    expect(first).toContain('"msg":"starting local member"');
    expect(second).not.toContain('"msg":"starting local member"');
    expect(second).toContain('"msg":"restarting local member"');
    for (const run of [first, second])
      expect(run).toMatch(/"msg":"opened backend db","path":"[^"]+","took":"[0-9.]+[µm]?s"/);
  });
});
