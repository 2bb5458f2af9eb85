// Events from the members' own log lines, on every usable backend (our member and real etcd 3.4 print the same
// zap messages): a defrag gives defrag.start and defrag.end, a snapshot save gives snapshot.served; a stop and a
// start carry the size of the member's db file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LabEvent, Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { repoRoot } from "../../engine/lab-engine/host/repo-root.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

const run = promisify(execFile);
const backends = await testBackends();

for (const backend of backends) {
  describe(`member log events on ${backend}`, { concurrent: true }, () => {
    let t: TestServer;
    let session: Session;
    beforeAll(async () => {
      t = await startTestServer({ backend });
      session = (await t.api<Session>("POST", "/api/sessions", { lab: "00-example" })).body;
    }, 120_000);
    afterAll(async () => {
      await t?.server.close();
    });

    const events = async () =>
      (await t.api<{ events: LabEvent[] }>("GET", `/api/sessions/${session.id}/events`)).body.events;
    const until = async (what: string, ok: (es: LabEvent[]) => boolean): Promise<LabEvent[]> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const es = await events();
        if (ok(es)) return es;
        if (Date.now() > deadline) throw new Error(`no ${what} in ${JSON.stringify(es.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const etcdctl = (...args: string[]) =>
      run(join(repoRoot(), "bin", "etcdctl"), args, { env: { ...process.env, ETCDCTL_ENDPOINTS: session.endpoints } });

    it.sequential(
      "reports a defrag and a snapshot served from the member's log",
      async () => {
        await etcdctl("defrag");
        const es = await until("defrag.end", (x) => x.some((e) => e.type === "defrag.end"));
        const start = es.find((e) => e.type === "defrag.start");
        const end = es.find((e) => e.type === "defrag.end");
        expect(start).toMatchObject({ member: "m1" });
        expect(end).toMatchObject({ member: "m1", ok: true });
        expect(end!.seq).toBeGreaterThan(start!.seq);
        const file = join(mkdtempSync(join(tmpdir(), "etcd-lab-snap-")), "snap.db");
        await etcdctl("snapshot", "save", file);
        await until("snapshot.served", (x) => x.some((e) => e.type === "snapshot.served" && e.member === "m1"));
      },
      60_000,
    );

    it.sequential(
      "gives member.exited and member.started the db file's size",
      async () => {
        const S = `/api/sessions/${session.id}`;
        expect((await t.api("POST", `${S}/members/m1/stop`)).status).toBe(200);
        expect((await t.api("POST", `${S}/members/m1/start`)).status).toBe(200);
        const stopped = (x: LabEvent[]) => x.findLast((e) => e.type === "control" && e.action === "stop")?.seq ?? 0;
        const es = await until("member.started", (x) =>
          x.some((e) => e.type === "member.started" && e.seq > stopped(x)),
        );
        const exited = es.filter((e) => e.type === "member.exited").at(-1);
        const started = es.filter((e) => e.type === "member.started").at(-1);
        expect(exited).toMatchObject({ member: "m1", dbBytes: expect.any(Number) });
        expect(started).toMatchObject({ member: "m1", dbBytes: expect.any(Number) });
        expect((started as { dbBytes: number }).dbBytes).toBeGreaterThan(0);
      },
      60_000,
    );
  });
}
