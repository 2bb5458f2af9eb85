// The differential test: one scripted scenario (testdata/scenario.txt) run by Debian's real etcdctl 3.4
// against a 3-member cluster of ours and against a 3-member real etcd 3.4 cluster, side by side in the same
// test. After normalising ids, ports, versions, sizes, raft counters and timings, both must print the same
// and exit alike — except cases tagged `# diff: <id>`, each an intentional 3.4-vs-3.6 difference listed in
// docs/etcd-differences.md, whose two outputs are both pinned in the scenario. UPDATE=1 rewrites the
// expectations from the runs (review the diff).
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestCluster, haveReal, memberCommand, realEtcdctlPath, type ServerKind } from "../member/harness.ts";
import { Normalizer } from "./normalize.ts";
import { formatScenario, parseScenario, renderResult, type Case, type Result } from "./scenario.ts";

const scenarioPath = join(import.meta.dirname, "testdata", "scenario.txt");
const differencesDoc = join(import.meta.dirname, "../../docs/etcd-differences.md");
const update = process.env["UPDATE"] === "1";
const ready = haveReal();

/** quotaBytes is small enough that the scenario can fill it in a few puts (NOSPACE is part of it). */
const quotaBytes = 2 * 1024 * 1024;

interface Side {
  kind: ServerKind;
  cluster: TestCluster;
  norm: Normalizer;
  env: NodeJS.ProcessEnv;
}

function documentedDiffs(): Set<string> {
  const ids = new Set<string>();
  for (const m of readFileSync(differencesDoc, "utf8").matchAll(/^\| `([a-z0-9-]+)` +\|/gm)) ids.add(m[1] as string);
  return ids;
}

function run(side: Side, command: string, timeoutMs = 30_000): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd: side.cluster.dir,
      env: side.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? (signal ? 137 : 1) });
    });
  });
}

/** writeLauncher writes <dir>/bin/start-<name> STATE INITIAL_CLUSTER: starts that member, waits until it serves. */
function writeLauncher(c: TestCluster, name: string): void {
  const m = c.member(name);
  const [cmd, prefix] = memberCommand(c.opts.kind);
  const flags = c
    .flagsFor(m, "new", "")
    .filter((f) => !f.startsWith("--initial-cluster=") && !f.startsWith("--initial-cluster-state="));
  const q = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  const script = `#!/bin/bash
# start-${name} STATE INITIAL_CLUSTER: start member ${name} in the background; wait until it answers status.
setsid ${[cmd, ...prefix, ...flags].map(q).join(" ")} --initial-cluster-state="$1" --initial-cluster="$2" \
  </dev/null >/dev/null 2>>${q(m.logPath)} &
echo $! > ${q(join(c.dir, `${name}.pid`))}
for i in $(seq 1 300); do
  if ETCDCTL_ENDPOINTS=127.0.0.1:${m.clientPort} etcdctl --dial-timeout=200ms --command-timeout=500ms endpoint status >/dev/null 2>&1; then exit 0; fi
  sleep 0.1
done
echo "member ${name} did not start" >&2
exit 1
`;
  const bin = join(c.dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, `start-${name}`), script);
  chmodSync(join(bin, `start-${name}`), 0o755);
}

async function prepare(kind: ServerKind): Promise<Side> {
  const cluster = await TestCluster.start({
    kind,
    size: 3,
    spare: 1,
    token: "etcd-lab-differential",
    // A generous election timeout: the machine is shared, and a spontaneous election would move the leader
    // the scenario pinned.
    flags: ["--heartbeat-interval=100", "--election-timeout=3000", `--quota-backend-bytes=${quotaBytes}`],
  });
  writeLauncher(cluster, "m4");
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(cluster.dir, "bin")}:${realEtcdctlPath.replace(/\/etcdctl$/, "")}:/usr/bin:/bin`,
    HOME: cluster.dir,
    DIR: cluster.dir,
    TZ: "UTC",
    LANG: "C.UTF-8",
    ETCDCTL_API: "3",
    // Requests go to a follower unless a case says otherwise: forwarding and ReadIndex get exercised.
    ETCDCTL_ENDPOINTS: cluster.endpoint("m2"),
    ENDPOINTS: cluster.endpoints(["m1", "m2", "m3"]),
  };
  for (const m of cluster.members) {
    const n = m.name.slice(1);
    env[`EP${n}`] = cluster.endpoint(m.name);
    env[`CLIENT${n}`] = cluster.clientUrl(m.name);
    env[`PEER${n}`] = cluster.peerUrl(m.name);
  }
  const side: Side = { kind, cluster, env, norm: new Normalizer(cluster.dir, new Map(), new Map()) };
  // Name the members' and the cluster's ids before anything prints them.
  const list = await run(side, "etcdctl member list -w json");
  const known = new Map<bigint, string>();
  const clusterId = /"cluster_id":(\d+)/.exec(list.stdout)?.[1];
  if (clusterId) known.set(BigInt(clusterId), "cluster");
  for (const mm of list.stdout.matchAll(/"ID":(\d+),"name":"(m\d+)"/g))
    known.set(BigInt(mm[1] as string), mm[2] as string);
  if (known.size !== 4) throw new Error(`${kind}: could not read the member ids: ${renderResult(list)}`);
  const ports = new Map(
    cluster.members.map((m) => [m.name, { client: m.clientPort, peer: m.peerPort, metrics: m.metricsPort }] as const),
  );
  side.norm = new Normalizer(cluster.dir, known, ports);
  return side;
}

/** learnAddedMember names a member the scenario added (`member add NAME ...` prints its id in hex). */
function learnAddedMember(side: Side, c: Case, raw: Result): void {
  const name = /member add (\S+)/.exec(c.command)?.[1];
  const id = /Member +([0-9a-f]+) added to cluster/.exec(raw.stdout)?.[1]; // %16x pads short ids with spaces
  if (name && id) side.norm.learn(BigInt(`0x${id}`), name);
}

describe.skipIf(!ready)("differential: real etcdctl 3.4 against our cluster and a real etcd 3.4 cluster", () => {
  const cases = ready ? parseScenario(readFileSync(scenarioPath, "utf8")) : [];
  const diffs = ready ? documentedDiffs() : new Set<string>();
  const updated = new Map<number, Case>();
  let ours: Side | undefined;
  let real: Side | undefined;
  const t0 = performance.now();

  beforeAll(async () => {
    const [o, r] = await Promise.allSettled([prepare("ours"), prepare("real")]);
    if (o.status === "fulfilled") ours = o.value;
    if (r.status === "fulfilled") real = r.value;
    if (o.status === "rejected") throw o.reason;
    if (r.status === "rejected") throw r.reason;
  }, 90_000);

  afterAll(async () => {
    await Promise.all([ours?.cluster.destroy(), real?.cluster.destroy()]);
    if (update && updated.size > 0) {
      writeFileSync(scenarioPath, formatScenario(cases.map((c) => updated.get(c.line) ?? c)));
    }
    console.log(`differential scenario: ${cases.length} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });

  for (const c of cases) {
    it(`line ${c.line}: ${c.command.split("\n")[0] ?? ""}`, async () => {
      if (!ours || !real) throw new Error("clusters did not start");
      const [ro, rr] = await Promise.all([run(ours, c.command), run(real, c.command)]);
      learnAddedMember(ours, c, ro);
      learnAddedMember(real, c, rr);
      const gotOurs = ours.norm.normalize(renderResult(ro), c.sort);
      const gotReal = real.norm.normalize(renderResult(rr), c.sort);
      if (update) {
        updated.set(c.line, {
          ...c,
          expected: gotReal,
          expectedOurs: c.diff !== undefined ? gotOurs : undefined,
        });
      }
      if (c.diff !== undefined) {
        expect(diffs, `# diff: ${c.diff} must be a row of docs/etcd-differences.md`).toContain(c.diff);
        expect(gotOurs, `line ${c.line}: a "# diff:" case whose outputs agree; drop the tag`).not.toBe(gotReal);
        if (!update) {
          expect(gotReal, `line ${c.line} (real etcd 3.4)`).toBe(c.expected);
          expect(gotOurs, `line ${c.line} (ours)`).toBe(c.expectedOurs);
        }
        return;
      }
      expect(gotOurs, `line ${c.line}: ours vs real etcd 3.4`).toBe(gotReal);
      if (!update) expect(gotReal, `line ${c.line}: the scenario's expectation`).toBe(c.expected);
    }, 60_000);
  }
});
