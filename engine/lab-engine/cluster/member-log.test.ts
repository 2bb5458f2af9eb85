import { describe, expect, it } from "vitest";
import { appendFileSync, mkdtempSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventOfLogLine, MemberLog, MemberLogs } from "./member-log.ts";
import type { LabEventBody } from "../types/event-types.ts";

// Lines as the two backends print them: real etcd 3.4.23 (../shared/reference/etcd-3.4/server-log.txt) and ours.
const real34 = {
  start:
    '{"level":"info","ts":"2026-11-30T04:29:51.363Z","caller":"v3rpc/maintenance.go:82","msg":"starting defragment"}',
  defragmenting:
    '{"level":"info","ts":"2026-11-30T04:29:51.364Z","caller":"backend/backend.go:403","msg":"defragmenting","path":"m1.etcd/member/snap/db"}',
  end: '{"level":"info","ts":"2026-11-30T04:29:51.371Z","caller":"v3rpc/maintenance.go:96","msg":"finished defragment"}',
  served:
    '{"level":"info","ts":"2026-11-30T04:34:10.346Z","caller":"v3rpc/maintenance.go:179","msg":"successfully sent database snapshot to client","total-bytes":20480,"size":"20 kB","took":"now"}',
};
const ours = {
  failed:
    '{"level":"warn","ts":"2026-12-02T03:00:00.000Z","caller":"v3rpc/maintenance.go:122","msg":"failed to defragment","error":"etcdserver: request timed out"}',
  sending:
    '{"level":"info","ts":"2026-12-02T03:00:00.000Z","caller":"v3rpc/maintenance.go:134","msg":"sending database snapshot to client","total-bytes":20480}',
};

describe("member log events", () => {
  it("reads defrag and snapshot lines of both backends, and nothing else", () => {
    expect(eventOfLogLine("m1", real34.start)).toEqual({ type: "defrag.start", member: "m1" });
    expect(eventOfLogLine("m1", real34.end)).toEqual({ type: "defrag.end", member: "m1", ok: true });
    expect(eventOfLogLine("m2", ours.failed)).toEqual({ type: "defrag.end", member: "m2", ok: false });
    expect(eventOfLogLine("m3", real34.served)).toEqual({ type: "snapshot.served", member: "m3" });
    expect(eventOfLogLine("m1", real34.defragmenting)).toBeNull();
    expect(eventOfLogLine("m1", ours.sending)).toBeNull();
    expect(eventOfLogLine("m1", "2026-11-30 05:02:21.227611 I | finished defragment")).toBeNull();
  });

  it("reads what a log gains, across partial lines and truncation", () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-mlog-"));
    const file = join(dir, "m1.log");
    writeFileSync(file, `${real34.start}\n`); // before the reader: not reported
    const events: LabEventBody[] = [];
    const log = new MemberLog("m1", file, (e) => events.push(e));
    log.skipToEnd();
    log.drain();
    expect(events).toEqual([]);
    appendFileSync(file, `${real34.defragmenting}\n${real34.end.slice(0, 40)}`);
    log.drain();
    expect(events).toEqual([]);
    appendFileSync(file, `${real34.end.slice(40)}\n`);
    log.drain();
    expect(events).toEqual([{ type: "defrag.end", member: "m1", ok: true }]);
    truncateSync(file, 0);
    appendFileSync(file, `${real34.served}\n`);
    log.drain();
    expect(events.at(-1)).toEqual({ type: "snapshot.served", member: "m1" });
    expect(events).toHaveLength(2);
  });

  it("wakes on a change of the directory, without being asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-mlogs-"));
    const events: LabEventBody[] = [];
    const logs = new MemberLogs(dir, (e) => events.push(e));
    logs.add("m1", join(dir, "m1.log"));
    logs.add("m2", join(dir, "m2.log"));
    try {
      appendFileSync(join(dir, "m2.log"), `${real34.start}\n`);
      const deadline = Date.now() + 5000;
      while (events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(events).toEqual([{ type: "defrag.start", member: "m2" }]);
      appendFileSync(join(dir, "m1.log"), `${ours.failed}\n`);
      logs.drain("m1");
      expect(events.at(-1)).toEqual({ type: "defrag.end", member: "m1", ok: false });
    } finally {
      logs.close();
    }
  });
});
