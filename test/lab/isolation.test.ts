// The walls between learners in the namespaces sandbox (engine/lab-engine/sandbox/namespaces-driver.ts): from
// learner A's shell, every way into learner B's lab or the lab server fails, while A's own lab works. Each attack
// is paired with the same command aimed at A's own things (or run by B), which succeeds: a wall that is proved
// by a failing command is not a command that fails for another reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { relayBundle } from "../../engine/lab-engine/sandbox/namespaces-driver.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const backend = (await testBackends())[0];
const runnable = process.getuid?.() === 0 && existsSync("/usr/bin/bwrap") && existsSync(relayBundle());
if (!runnable) {
  const why = "isolation tests need root, /usr/bin/bwrap and dist/lab-relay.mjs (npm run build)";
  if (process.env["CI"]) throw new Error(`${why}: CI must run them`);
  console.warn(`\n*** SKIPPING ${why} ***\n`);
}

/** adminSecret stands for a secret in the lab server's own environment (an admin token, a cloud key). */
const adminSecret = `adm-${process.pid}-secret`;

describe.skipIf(!backend || !runnable)("isolation between learners (namespaces sandbox)", () => {
  let t: TestServer;
  let a: Session;
  let b: Session;

  beforeAll(async () => {
    process.env["WORKSHOP_ADMIN_TOKEN"] = adminSecret;
    t = await startTestServer({ backend: backend!, sandbox: "namespaces" });
    a = (await t.api<Session>("POST", "/api/sessions", { lab: "00-example" }, { learner: "alice" })).body;
    b = (await t.api<Session>("POST", "/api/sessions", { lab: "00-example" }, { learner: "bob" })).body;
    expect(a, JSON.stringify(a)).toMatchObject({ state: "ready" });
    expect(b.state).toBe("ready");
  }, 120_000);
  afterAll(async () => {
    delete process.env["WORKSHOP_ADMIN_TOKEN"];
    await t?.server.close();
  });

  /** sh types `command` into a session's main shell and returns the exit code its prompt reported. */
  const sh = async (s: Session, command: string): Promise<number | null> => {
    const session = t.server.manager.get(s.id)!;
    const [r] = await session.openTerminal("main").terminal.run([command], 30_000);
    return r!.exitCode;
  };
  /** shOut runs `command` with its output in a file of the session's home, and returns the output. */
  const shOut = async (s: Session, command: string): Promise<{ code: number | null; out: string }> => {
    const code = await sh(s, `{ ${command} ; } > ~/out.txt 2>&1`);
    return { code, out: readFileSync(join(s.workspace, "home", "out.txt"), "utf8") };
  };
  const uidOf = async (s: Session): Promise<string> => (await shOut(s, "id -u")).out.trim();
  /** m1 is member m1 of a session now (a reset restarts it with a new pid). */
  const m1 = (s: Session) =>
    t.server.manager
      .get(s.id)!
      .info()
      .members.find((m) => m.name === "m1")!;

  it("A's own lab works: etcdctl against its cluster, lab status", async () => {
    expect(await sh(a, "etcdctl put /mine yes && etcdctl get /mine | grep -qx yes")).toBe(0);
    expect(await sh(a, "lab status")).toBe(0);
    expect(await sh(a, "id -u")).toBe(0);
    const { out } = await shOut(a, "id -u");
    expect(Number(out.trim())).toBeGreaterThanOrEqual(200_000);
  });

  it("A's lab survives a reset inside its sandbox (same ports, fresh shell)", async () => {
    const S = `/api/sessions/${a.id}`;
    expect((await t.api("POST", `${S}/reset`, {}, { learner: "alice" })).status).toBe(200);
    expect(await sh(a, "etcdctl put /after-reset 1 && lab status")).toBe(0);
  });

  it("the shell in the sandbox reaches its session's S3 endpoint (a server port it was given)", async () => {
    const backup = (await t.api<Session>("POST", "/api/sessions", { lab: "00-backup" }, { learner: "alice" })).body;
    expect(backup, JSON.stringify(backup)).toMatchObject({ state: "ready" });
    const solved = await t.api<{ result: { passed: boolean; message: string } }>(
      "POST",
      `/api/sessions/${backup.id}/tasks/ship/solve`,
      {},
      { learner: "alice" },
    );
    expect(solved.body.result).toMatchObject({ passed: true });
    await t.api("DELETE", `/api/sessions/${backup.id}`, undefined, { learner: "alice" });
  });

  it("A cannot read B's workspace", async () => {
    const file = join(b.workspace, "events.jsonl");
    expect(await sh(b, `cat ${file} > /dev/null`)).toBe(0);
    expect(await sh(a, `cat ${file} > /dev/null`)).not.toBe(0);
    expect(await sh(a, `ls ${b.workspace}`)).not.toBe(0);
    expect(await sh(a, `ls ${join(t.home, "sessions")} | grep -q ${b.id}`)).not.toBe(0);
    expect(await sh(a, `ls ${join(t.home, "progress")}`)).not.toBe(0);
  });

  it("A cannot signal B's members", async () => {
    expect(await sh(a, `kill -0 ${m1(a).pid}`)).toBe(0);
    expect(await sh(a, `kill -STOP ${m1(b).pid}`)).not.toBe(0);
    expect(await sh(a, `kill -KILL ${m1(b).pid}`)).not.toBe(0);
    const status = (
      await t.api<{ members: { process: string }[] }>("GET", `/api/sessions/${b.id}/status`, undefined, {
        learner: "bob",
      })
    ).body;
    expect(status.members[0]!.process).toBe("up");
    expect(readFileSync(`/proc/${m1(b).pid}/stat`, "utf8").split(") ")[1]![0]).not.toBe("T");
  });

  it("A cannot connect to B's member ports (client, peer, metrics)", async () => {
    const ports = [m1(b).clientUrl, m1(b).peerUrl, m1(b).metricsUrl].map((u) => new URL(u).port);
    const own = await shOut(b, `ETCDCTL_ENDPOINTS=${m1(b).clientUrl} etcdctl endpoint health`);
    expect(own.code, own.out).toBe(0);
    expect(await sh(a, `ETCDCTL_ENDPOINTS=${m1(b).clientUrl} etcdctl --dial-timeout=2s endpoint health`)).not.toBe(0);
    for (const port of ports) {
      expect(await sh(b, `exec 3<>/dev/tcp/127.0.0.1/${port}`)).toBe(0);
      expect(await sh(a, `(exec 3<>/dev/tcp/127.0.0.1/${port})`)).not.toBe(0);
    }
  });

  it("A cannot see the server's token, its secrets, or anyone's session token (env, /proc/*/environ, ps)", async () => {
    const bToken = t.server.manager.get(b.id)!.token;
    const aToken = t.server.manager.get(a.id)!.token;
    // The patterns go in a file, so no process's argv carries them (grep would find itself).
    writeFileSync(
      join(a.workspace, "home", "patterns"),
      [t.server.token, bToken, aToken, adminSecret, b.id, "bob"].join("\n") + "\n",
    );
    expect(await sh(a, "env | grep -qFf ~/patterns")).toBe(1);
    expect(await sh(a, "cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | grep -qaFf ~/patterns")).toBe(1);
    const ps = await shOut(a, "ps axeww -o user=,pid=,args=");
    expect(ps.code).toBe(0);
    for (const secret of [t.server.token, bToken, aToken, adminSecret, b.id]) expect(ps.out).not.toContain(secret);
    // The server's processes, the relay and B's are not A's to see: every process listed is A's user's.
    const users = new Set(
      ps.out
        .trim()
        .split("\n")
        .map((l) => l.trim().split(/\s+/)[0]),
    );
    expect([...users]).toEqual([await uidOf(a)]);
    expect(await sh(a, `cat /proc/${process.pid}/environ > /dev/null`)).not.toBe(0);
    // Its own token is in a file only its user reads, not in its environment.
    expect(await sh(a, `test "$(cat "$ETCD_LAB_TOKEN_FILE")" = "${aToken}"`)).toBe(0);
  });

  it("A cannot reach the server's API as another session or learner", async () => {
    const bToken = t.server.manager.get(b.id)!.token;
    writeFileSync(join(a.workspace, "home", "tokens"), `${t.server.token}\n${bToken}\n`);
    expect(await sh(a, "lab status")).toBe(0);
    // A's token for B's session.
    expect(await sh(a, `ETCD_LAB_SESSION=${b.id} lab status`)).not.toBe(0);
    // B's token (say it leaked) and the server's own token: not accepted from A's sandbox.
    expect(
      await sh(a, `ETCD_LAB_TOKEN_FILE= ETCD_LAB_TOKEN=$(sed -n 2p ~/tokens) ETCD_LAB_SESSION=${b.id} lab status`),
    ).not.toBe(0);
    expect(
      await sh(a, `ETCD_LAB_TOKEN_FILE= ETCD_LAB_TOKEN=$(sed -n 1p ~/tokens) ETCD_LAB_SESSION=${b.id} lab status`),
    ).not.toBe(0);
    const asAdmin = await shOut(
      a,
      `node -e 'fetch(process.env.ETCD_LAB_URL + "/api/sessions", {headers: {authorization: "Bearer " + require("fs").readFileSync(process.env.HOME + "/tokens", "utf8").split("\\n")[0], "x-etcd-lab-learner": "bob"}}).then(r => console.log(r.status))'`,
    );
    expect(asAdmin.out.trim()).toBe("401");
    const ownServer = await shOut(
      a,
      `node -e 'fetch(process.env.ETCD_LAB_URL + "/api/sessions/${a.id}", {headers: {authorization: "Bearer " + require("fs").readFileSync(process.env.ETCD_LAB_TOKEN_FILE, "utf8").trim()}}).then(r => console.log(r.status))'`,
    );
    expect(ownServer.out.trim()).toBe("200");
  });
});
