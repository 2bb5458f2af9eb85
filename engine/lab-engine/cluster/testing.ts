// Test support: which backends a test can run on here. A backend counts only if its binary exists AND a
// one-member cluster of it passes a smoke probe (start, put, SIGKILL + restart + get, SIGSTOP + SIGCONT +
// put; cached per binary content); otherwise the test skips it loudly, naming the failing step — except
// under ETCD_LAB_CI=1, where a missing or broken backend fails the run.
// ETCD_LAB_TEST_BACKENDS=real (or ours) narrows the list.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackendUnavailable, resolveMemberBinary } from "./member-binary.ts";
import type { Backend } from "../types/status-types.ts";
import { repoRoot } from "../host/repo-root.ts";
import { Cluster } from "./cluster.ts";
import { Watchdog } from "./watchdog.ts";
import { EtcdConnection } from "./etcd-connection.ts";
import { LateRpc } from "./cluster-rpc.ts";

function skipOrFail(b: Backend, why: string): void {
  if (process.env["ETCD_LAB_CI"] === "1") throw new Error(`ETCD_LAB_CI=1 but backend ${b} is unusable: ${why}`);
  console.warn(`\n!!! SKIPPING the ${b} backend: ${why}\n`);
}

// The probe's verdict is cached per binary content (not mtime: every test run rebuilds dist/etcd.mjs, mostly to
// the same bytes).
function probeKey(b: Backend): string {
  const bin = resolveMemberBinary(b);
  const file = bin.argsPrefix.at(-1) ?? bin.command; // the bundle comes after node's flags
  const hash = createHash("sha256").update(readFileSync(file)).update(bin.argsPrefix.join("\0"));
  return `${b}-${hash.digest("hex").slice(0, 16)}`;
}

/** probe starts a one-member cluster of `b` and returns null when it became healthy, else why not. */
async function probe(b: Backend): Promise<string | null> {
  const cacheDir = join(repoRoot(), "node_modules", ".cache", "etcd-lab");
  const cache = join(cacheDir, `probe-${probeKey(b)}.json`);
  if (existsSync(cache)) return (JSON.parse(readFileSync(cache, "utf8")) as { error: string | null }).error;
  const guard = new Watchdog();
  const workspace = mkdtempSync(join(tmpdir(), "etcd-lab-probe-"));
  let error: string | null = null;
  let step = "start a one-member cluster";
  // The client's timers do not hold the event loop open; a probe that waits on a silent member must not let
  // a plain-Node caller (the bench) end with an unsettled top-level await.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const rpc = new LateRpc("the probe's etcd connection is not open yet");
    const c = await Cluster.start({
      session: "probe",
      workspace,
      backend: b,
      members: 1,
      guard,
      rpc,
      onEvent: () => undefined,
      readyTimeoutMs: 15_000,
    });
    const conn = new EtcdConnection(c.endpoints());
    rpc.connect(conn);
    try {
      // What every lab needs: writes and reads, surviving a SIGKILL + restart and a SIGSTOP + SIGCONT.
      step = "put";
      await conn.put("/probe", "1");
      step = "SIGKILL, start, then get";
      await c.kill("m1");
      await c.start("m1");
      if ((await conn.get("/probe"))?.value !== "1") throw new Error("the key is gone after a restart");
      step = "SIGSTOP, SIGCONT, then put";
      c.pause("m1");
      await new Promise((r) => setTimeout(r, 300));
      c.resume("m1");
      await conn.put("/probe", "2");
    } finally {
      conn.close();
      await c.destroy();
    }
  } catch (err) {
    error = `a one-member cluster failed at "${step}": ${(err as Error).message.split("\n").slice(0, 4).join(" | ")}`;
  } finally {
    clearInterval(keepAlive);
    await guard.close();
    rmSync(workspace, { recursive: true, force: true });
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cache, JSON.stringify({ error }));
  return error;
}

/** testBackends returns the usable backends, in the order wanted (default: ours, then real). */
export async function testBackends(wanted: readonly Backend[] = ["ours", "real"]): Promise<Backend[]> {
  const only = process.env["ETCD_LAB_TEST_BACKENDS"]?.split(",").map((s) => s.trim());
  const out: Backend[] = [];
  for (const b of wanted) {
    if (only && !only.includes(b)) continue;
    try {
      resolveMemberBinary(b);
    } catch (err) {
      if (!(err instanceof BackendUnavailable)) throw err;
      skipOrFail(b, err.message);
      continue;
    }
    const why = await probe(b);
    if (why) skipOrFail(b, why);
    else out.push(b);
  }
  return out;
}
