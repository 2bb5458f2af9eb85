// Replaying an event log: the controls recorded in one session's events.jsonl, re-applied with `lab replay`
// (the shell command, through the API) and with replayControls (in process), bring a fresh session to the
// same process and fault state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterStatus, LabEvent, Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { replayControls } from "../../engine/lab-engine/session/replay.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const backend = (await testBackends())[0];

describe.skipIf(!backend)(`replay (${backend ?? "no backend"})`, () => {
  let t: TestServer;
  let session: Session;
  let recorded: string;

  beforeAll(async () => {
    t = await startTestServer({ backend: backend! });
    session = (await t.api<Session>("POST", "/api/sessions", { lab: "00-example" })).body;
    const S = `/api/sessions/${session.id}`;
    for (const action of ["kill", "start", "pause"]) {
      expect((await t.api("POST", `${S}/members/m1/${action}`)).status).toBe(200);
    }
    recorded = join(mkdtempSync(join(tmpdir(), "etcd-lab-replay-")), "events.jsonl");
    copyFileSync(join(session.workspace, "events.jsonl"), recorded);
    await t.api("POST", `${S}/members/m1/resume`);
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  const state = async () =>
    (await t.api<ClusterStatus>("GET", `/api/sessions/${session.id}/status`)).body.members[0]?.process;
  const replayed = async () =>
    (await t.api<{ events: LabEvent[] }>("GET", `/api/sessions/${session.id}/events`)).body.events
      .filter((e) => e.type === "control" && e.source === "replay")
      .map((e) => (e.type === "control" ? e.action : ""));

  it("lab replay re-applies the recorded controls through the API", async () => {
    await t.api("POST", `/api/sessions/${session.id}/reset`, {});
    expect(await state()).toBe("up");
    const s = t.server.manager.get(session.id)!;
    const env = { ...process.env, ETCD_LAB_URL: t.server.url, ETCD_LAB_SESSION: session.id, ETCD_LAB_TOKEN: s.token };
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(repoRoot(), "dist", "lab.mjs"), "replay", recorded, "20"],
        { env },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(out).toContain("3 of 3 controls replayed");
    expect(await state()).toBe("paused");
    expect(await replayed()).toEqual(["kill", "start", "pause"]);
  }, 60_000);

  it("replayControls does the same in process", async () => {
    await t.api("POST", `/api/sessions/${session.id}/members/m1/resume`);
    await t.api("POST", `/api/sessions/${session.id}/reset`, {});
    const s = t.server.manager.get(session.id)!;
    const events = (await import("../../engine/lab-engine/session/event-log.ts")).readEventFile(recorded);
    const steps = await replayControls(s, events, { speed: 20 });
    expect(steps).toEqual([
      { action: "kill", member: "m1" },
      { action: "start", member: "m1" },
      { action: "pause", member: "m1" },
    ]);
    expect(await state()).toBe("paused");
    await t.api("POST", `/api/sessions/${session.id}/members/m1/resume`);
  }, 60_000);
});
