// Golden scripted tests for etcdctl/etcdutl (test/etcdctl/testdata/*.txt, command / ---- / output): every
// script runs against a fresh cluster with our tools, and the normalised output must equal the script
// (UPDATE=1 rewrites the scripts). Each case not tagged `# diff: <id>` is also run by Debian's real
// etcdctl 3.4 against a second, identical cluster, and both normalised outputs must agree; every tag must
// name a row of the differences table in docs/etcdctl.md.
//
// Scripts run concurrently, each on its own clusters; the cases of one script run in order. Commands that never
// end by themselves are cut short with `take N` (test/etcdctl/bin/take) rather than waiting out a `timeout`.
//
// ETCD_LAB_GOLDEN_SERVER=real|ours picks the member binary (default: real etcd 3.4); npm test runs both, the
// second through golden-ours.test.ts.

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { requireBinary } from "../../engine/tools/cobra/testing.ts";
import type { Cluster, ServerKind } from "./cluster.ts";
import { realEtcd, startCluster } from "./cluster.ts";
import { Normalizer } from "./normalize.ts";
import { realEtcdctl, runCommand } from "./runner.ts";
import type { Case } from "./script.ts";
import { formatScript, parseScript, renderResult } from "./script.ts";

const testdata = join(import.meta.dirname, "testdata");
const update = process.env["UPDATE"] === "1";
const server: ServerKind = (process.env["ETCD_LAB_GOLDEN_SERVER"] as ServerKind | undefined) ?? "real";
const haveServer = server === "ours" || requireBinary(realEtcd, "Debian etcd-server 3.4 (etcd)");
const crossCheck = requireBinary(realEtcdctl, "Debian etcd-client 3.4 (etcdctl)");

/** documentedDiffs are the ids in the differences table of docs/etcdctl.md (`| id | ...`). */
function documentedDiffs(): Set<string> {
  const doc = join(import.meta.dirname, "../../docs/etcdctl.md");
  const ids = new Set<string>();
  if (!existsSync(doc)) return ids;
  for (const m of readFileSync(doc, "utf8").matchAll(/^\| `([a-z0-9-]+)` +\|/gm)) ids.add(m[1] as string);
  return ids;
}

/**
 * settings reads a script's header: `# cluster: N` members, `# quota: bytes`, and `# server: ours` for scripts
 * that only make sense on this repo's member (etcdutl reads our backend files, not real etcd's bbolt ones).
 */
function settings(cases: Case[]): { members: number; quotaBytes?: number; oursOnly: boolean } {
  const prose = cases[0]?.prose.join("\n") ?? "";
  const members = Number(/cluster: (\d+)/.exec(prose)?.[1] ?? 1);
  const quota = /quota: (\d+)/.exec(prose)?.[1];
  const oursOnly = /server: ours/.test(prose);
  return quota ? { members, quotaBytes: Number(quota), oursOnly } : { members, oursOnly };
}

/** clusterIds asks the cluster (JSON gateway) for its cluster id and member ids. */
async function clusterIds(c: Cluster): Promise<bigint[]> {
  const m = c.members[0];
  if (!m) return [];
  const res = await fetch(`${m.clientUrl}/v3/cluster/member/list`, { method: "POST", body: "{}" });
  const body = (await res.json()) as { header?: { cluster_id?: string }; members?: { ID?: string }[] };
  const ids = (body.members ?? []).map((x) => x.ID);
  return [body.header?.cluster_id, ...ids].filter((x): x is string => x !== undefined).map((x) => BigInt(x));
}

function memberPorts(c: Cluster): { client: number; peer: number }[] {
  const port = (url: string) => Number(url.slice(url.lastIndexOf(":") + 1));
  return c.members.map((m) => ({ client: port(m.clientUrl), peer: port(m.peerUrl) }));
}

const files = readdirSync(testdata).filter((f) => f.endsWith(".txt"));

/**
 * clusterSlots bounds how many scripts hold their clusters at once: real etcd members are light, ours are Node
 * processes, and a dozen clusters of them starve a 2-core machine (ETCD_LAB_GOLDEN_CONCURRENCY overrides).
 */
const clusterSlots = Number(process.env["ETCD_LAB_GOLDEN_CONCURRENCY"] ?? (server === "ours" ? 2 : 5));
let slotsFree = clusterSlots;
const slotWaiters: (() => void)[] = [];
async function acquireSlot(): Promise<void> {
  if (slotsFree > 0) {
    slotsFree--;
    return;
  }
  await new Promise<void>((resolve) => slotWaiters.push(resolve));
}
function releaseSlot(): void {
  const next = slotWaiters.shift();
  if (next) next();
  else slotsFree++;
}

describe.skipIf(!haveServer)(`etcdctl golden scripts (server: ${server})`, () => {
  const diffs = documentedDiffs();
  for (const file of files) {
    const path = join(testdata, file);
    const cases = parseScript(readFileSync(path, "utf8"));
    const { members, quotaBytes, oursOnly } = settings(cases);
    // Scripts about our own member (restoring and starting a data dir) run in golden-ours.test.ts only.
    if (oursOnly && server !== "ours") continue;
    describe(file, { concurrent: true }, () => {
      let ours: Cluster;
      let real: Cluster | undefined;
      const nOurs = { n: undefined as Normalizer | undefined };
      const nReal = { n: undefined as Normalizer | undefined };
      const updated: Case[] = [];

      let holding = false;
      // Waiting for a slot can take as long as other scripts run, hence the long hook timeout.
      beforeAll(async () => {
        await acquireSlot();
        holding = true;
        ours = await startCluster({ kind: server, members, ...(quotaBytes ? { quotaBytes } : {}) });
        nOurs.n = new Normalizer(ours.dir, memberPorts(ours));
        for (const id of await clusterIds(ours)) nOurs.n.knownIds.add(id);
        if (crossCheck) {
          real = await startCluster({ kind: server, members, ...(quotaBytes ? { quotaBytes } : {}) });
          nReal.n = new Normalizer(real.dir, memberPorts(real));
          for (const id of await clusterIds(real)) nReal.n.knownIds.add(id);
        }
      }, 1_200_000);

      afterAll(async () => {
        await ours?.stop();
        await real?.stop();
        if (holding) releaseSlot();
        if (update && updated.length > 0) {
          const byLine = new Map(updated.map((u) => [u.line, u]));
          writeFileSync(path, formatScript(cases.map((c) => byLine.get(c.line) ?? c)));
        }
      });

      for (const c of cases) {
        it(
          `line ${c.line}: ${c.command.split("\n")[0]}`,
          { concurrent: false, timeout: 60_000 },
          async ({ expect }) => {
            // Cases exempt from the cross-check still run on the twin cluster (with our tools), so that both
            // clusters go through the same writes and later cases stay comparable.
            // etcdutl and a member the script starts itself ($PORT1/$PORT2, from a restored data dir) work on this
            // repo's files, which the real tools cannot read.
            const oursFiles = c.command.includes("etcdutl") || /\$PORT\d/.test(c.command);
            const twinTools = c.diff === undefined && !oursFiles ? "real" : "ours";
            const [a, b] = await Promise.all([
              runCommand(c.command, ours, "ours"),
              real ? runCommand(c.command, real, twinTools) : undefined,
            ]);
            const got = (nOurs.n as Normalizer).normalize(renderResult(a));
            updated.push({ ...c, expected: got });
            const twin = b ? (nReal.n as Normalizer).normalize(renderResult(b), true) : undefined;
            if (c.diff !== undefined)
              expect(diffs, `diff id "${c.diff}" must be documented in docs/etcdctl.md`).toContain(c.diff);
            if (!update) expect(got, `${file}:${c.line}`).toBe(c.expected);
            if (twin !== undefined && twinTools === "real") {
              expect(twin, `cross-check with etcdctl 3.4 at ${file}:${c.line}`).toBe(
                (nOurs.n as Normalizer).normalize(renderResult(a), true),
              );
            }
          },
        );
      }
    });
  }
});
