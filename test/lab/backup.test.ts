// A lab with the backup extras (cluster.s3, backupKey, pki): the shell's rclone reaches the session's endpoint
// with the learner's write-only key (listing is refused), age encrypts to ~/keys/backup.pub, the check reads the
// bucket and decrypts with the engine-held identity, the masters have their PKI, and a reset keeps the CAs but
// empties the bucket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const [backend] = await testBackends();

describe.skipIf(!backend)("backup extras", () => {
  let t: TestServer;
  let session: Session;
  beforeAll(async () => {
    t = await startTestServer({ backend: backend ?? "ours" });
    const res = await t.api<Session>("POST", "/api/sessions", { lab: "00-backup" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    session = res.body;
  }, 120_000);
  afterAll(async () => {
    await t?.server.close();
  });

  const check = async () =>
    (await t.api<{ passed: boolean; message: string }>("POST", `/api/sessions/${session.id}/tasks/ship/check`, {}))
      .body;

  it("fails fresh, passes after age | rclone rcat, and keeps the CAs but not the objects across reset", async () => {
    expect(await check()).toMatchObject({ passed: false, message: "The bucket is empty." });
    const home = join(session.workspace, "home");
    const ca = readFileSync(join(home, "masters/m1/etc/kubernetes/pki/ca.crt"), "utf8");
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    const solved = await t.api<{ result: { passed: boolean; message: string } }>(
      "POST",
      `/api/sessions/${session.id}/tasks/ship/solve`,
      {},
    );
    expect(solved.body.result).toMatchObject({
      passed: true,
      message: "ok.age (by the learner) decrypts to backup-ok.",
    });
    const reset = await t.api<Session>("POST", `/api/sessions/${session.id}/reset`, { clearProgress: true });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(readFileSync(join(home, "masters/m1/etc/kubernetes/pki/ca.crt"), "utf8")).toBe(ca);
    expect(await check()).toMatchObject({ passed: false, message: "The bucket is empty." });
  }, 120_000);
});
