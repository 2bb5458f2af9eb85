// The kubectl differential test: the same commands through real kubectl (/usr/bin/kubectl) and through ours
// (bin/kubectl, built by the global setup) against the same simulated kube-apiserver on a seeded 3-member
// cluster, on both backends (our etcd and Debian's real etcd). stdout, stderr and the exit status must be
// equal after normalising ages, UIDs, resourceVersions and timestamps. Besides the command list: a watch that
// sees an event, connection refused while the apiserver is down, and a read during quorum loss.

import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realEtcd, type ServerKind } from "../etcdctl/cluster.ts";
import { mutating, readOnly, sideFiles, typedCreates, type Case } from "./cases.ts";
import { startEnv, type KubeEnv } from "./env.ts";
import { normalize } from "./normalize.ts";

// /usr/bin/kubectl may be gcloud's dispatcher, which runs the kubectl matching the server's minor version;
// the reference is v1.32, so its 1.32 binary is used when the dispatcher has one.
const gcloud132 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const realKubectl = existsSync(gcloud132) ? gcloud132 : "/usr/bin/kubectl";
const ourKubectl = join(import.meta.dirname, "../../bin/kubectl");

function executable(path: string, what: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    const why = `${what} (${path}) is not installed`;
    if (process.env["ETCD_LAB_CI"] === "1") throw new Error(why);
    console.warn(`\n!!! SKIPPING kubectl differential tests: ${why}\n`);
    return false;
  }
}

const haveKubectl = executable(realKubectl, "real kubectl");
const backends: ServerKind[] = ["ours"];
if (executable(realEtcd, "Debian's real etcd")) backends.push("real");

type Side = "real" | "ours";

/** Run is one invocation's result. */
interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

interface Runner {
  env: KubeEnv;
  /** home is each side's $HOME (kubectl's discovery cache lives there). */
  home: Record<Side, string>;
}

interface Started {
  stdout: () => string;
  done: Promise<Run>;
}

function start(r: Runner, side: Side, args: string[], opts: { stdin?: string; home?: string } = {}): Started {
  const cwd = join(r.env.dir, side);
  let stdout = "";
  let stderr = "";
  const done = new Promise<Run>((resolve, reject) => {
    const p = spawn(side === "real" ? realKubectl : ourKubectl, args, {
      cwd,
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: opts.home ?? r.home[side],
        KUBECONFIG: r.env.kubeconfig,
        TZ: "UTC",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    p.on("error", reject);
    p.on("close", (code) => resolve({ stdout, stderr, code }));
    p.stdin.end(opts.stdin ?? "");
  });
  return { stdout: () => stdout, done };
}

function run(r: Runner, side: Side, args: string[], opts: { stdin?: string; home?: string } = {}): Promise<Run> {
  return start(r, side, args, opts).done;
}

const marker: Record<Side, string> = { real: "zr", ours: "zo" };

function sideArgs(c: Case, side: Side): string[] {
  return c.args.map((a) => a.replaceAll("{S}", marker[side]));
}

function view(r: Run): { stdout: string; stderr: string; code: number | null } {
  return { stdout: normalize(r.stdout), stderr: normalize(r.stderr), code: r.code };
}

async function both(r: Runner, c: Case, home?: Record<Side, string>): Promise<void> {
  const [real, ours] = await Promise.all(
    (["real", "ours"] as const).map((s) =>
      run(r, s, sideArgs(c, s), {
        ...(c.stdin !== undefined ? { stdin: c.stdin.replaceAll("{S}", marker[s]) } : {}),
        ...(home ? { home: home[s] } : {}),
      }),
    ),
  );
  if (c.shows !== undefined) expect((real as Run).stdout + (real as Run).stderr).toContain(c.shows);
  expect(view(ours as Run), `kubectl ${c.args.join(" ")}`).toEqual(view(real as Run));
}

/** inBatches runs fn over items with at most n at a time. */
async function inBatches<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(fn));
}

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe.skipIf(!haveKubectl).each(backends)("kubectl differential (etcd backend: %s)", (backend) => {
  let r: Runner;

  beforeAll(async () => {
    const env = await startEnv(backend);
    const home = {
      real: mkdtempSync(join(tmpdir(), "kubectl-home-")),
      ours: mkdtempSync(join(tmpdir(), "kubectl-home-")),
    };
    for (const side of ["real", "ours"] as const) {
      mkdirSync(join(env.dir, side));
      for (const [name, text] of Object.entries(sideFiles)) {
        writeFileSync(join(env.dir, side, name), text.replaceAll("{S}", marker[side]));
      }
    }
    r = { env, home };
  }, 60_000);

  afterAll(async () => {
    await r?.env.stop();
  });

  it(`${readOnly.length} read-only commands`, async () => {
    await inBatches(readOnly, 4, (c) => both(r, c));
  }, 120_000);

  it(`${mutating.length} mutating commands, each kubectl on its own objects`, async () => {
    for (const c of mutating) await both(r, c);
  }, 120_000);

  it(`${typedCreates.length} generator commands (create configmap|secret generic|job --from)`, async () => {
    // kubectl 1.32's typed client posts protobuf (the `k8s\0` envelope): the apiserver must read it.
    const probe = await run(r, "real", ["create", "configmap", "probe-protobuf", "--dry-run=server"]);
    expect(probe, "real kubectl's protobuf create").toMatchObject({ code: 0, stderr: "" });
    // The jobs are made from each side's CronJob (the mutating cases apply it too).
    for (const s of ["real", "ours"] as const) expect((await run(r, s, ["apply", "-f", "cronjob.yaml"])).code).toBe(0);
    for (const c of typedCreates) await both(r, c);
  }, 60_000);

  it("get -w prints the list, then the rows of the watch's events", async () => {
    const watches = (["real", "ours"] as const).map((s) => start(r, s, ["get", "cm", "-w", "--request-timeout=4s"]));
    await until(() => watches.every((w) => w.stdout().includes("kube-root-ca.crt")), "both watches to list");
    const made = await run(r, "real", ["apply", "-f", "-"], {
      stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched-by-both\ndata:\n  a: b\n",
    });
    expect(made.code).toBe(0);
    const [real, ours] = await Promise.all(watches.map((w) => w.done));
    expect((real as Run).stdout).toContain("watched-by-both");
    expect(view(ours as Run)).toEqual(view(real as Run));
  }, 30_000);

  it("connection refused while the apiserver is down", async () => {
    await r.env.apiserver.stop();
    try {
      // Fresh homes: no discovery cache, so both print client-go's discovery errors first.
      const home = {
        real: mkdtempSync(join(tmpdir(), "kubectl-home-")),
        ours: mkdtempSync(join(tmpdir(), "kubectl-home-")),
      };
      await both(r, { args: ["get", "pods"], shows: "was refused - did you specify the right host or port?" }, home);
      await both(r, { args: ["version"] }, home);
    } finally {
      await r.env.apiserver.start();
    }
  }, 30_000);

  it("a read during quorum loss (2 of 3 members stopped)", async () => {
    const stopped = r.env.cluster.members.slice(1);
    for (const m of stopped) m.proc.kill("SIGSTOP");
    try {
      // The apiserver's etcd call times out (its --request-timeout is 4 s here) and it answers with one of two
      // errors (its 504 Timeout, or the etcd client's deadline when that fires first): both kubectls must print
      // the same text for the same answer, so a pair that got different answers is run again.
      const c: Case = { args: ["get", "pods", "-n", "web", "--request-timeout=20s"], shows: "Error from server" };
      for (let attempt = 1; ; attempt++) {
        const [real, ours] = await Promise.all([run(r, "real", c.args), run(r, "ours", c.args)]);
        expect(real.stderr).toContain(c.shows);
        const same = JSON.stringify(view(ours)) === JSON.stringify(view(real));
        if (same || attempt === 3) {
          expect(view(ours), `kubectl ${c.args.join(" ")}`).toEqual(view(real));
          break;
        }
      }
    } finally {
      for (const m of stopped) m.proc.kill("SIGCONT");
    }
  }, 60_000);
});
