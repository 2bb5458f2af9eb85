import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ControlChannel, type ControlTarget, type DropDirection } from "./control-channel.ts";

function recordingTarget() {
  const calls: unknown[][] = [];
  const target: ControlTarget = {
    status: () => ({ name: "m1" }),
    drop: (peers: string[], d: DropDirection) => void calls.push(["drop", peers, d]),
    delay: (peers: string[], ms: number) => void calls.push(["delay", peers, ms]),
    heal: () => void calls.push(["heal"]),
    setFsyncDelay: (ms: number) => void calls.push(["fsync", ms]),
  };
  return { target, calls };
}

async function exchange(path: string, lines: string[]): Promise<unknown[]> {
  const sock = connect(path);
  const out: unknown[] = [];
  let buf = "";
  return new Promise((resolve, reject) => {
    sock.on("error", reject);
    sock.on("data", (d) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        out.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      if (out.length === lines.length) {
        sock.end();
        resolve(out);
      }
    });
    sock.write(lines.join("\n") + "\n");
  });
}

describe("ControlChannel", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("dispatches ops to the target and reports errors without closing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctl-"));
    dirs.push(dir);
    const { target, calls } = recordingTarget();
    const ch = await ControlChannel.listen(join(dir, "m1.sock"), target);
    const replies = await exchange(ch.path, [
      '{"id":1,"op":"status"}',
      '{"id":2,"op":"drop","peers":["m2","m3"],"direction":"in"}',
      '{"id":3,"op":"delay","peers":["m3"],"ms":200}',
      '{"id":4,"op":"heal"}',
      '{"id":5,"op":"fsync-delay","ms":50}',
      '{"id":6,"op":"drop","peers":[]}',
      '{"id":7,"op":"explode"}',
      "not json",
    ]);
    await ch.close();
    expect(replies).toEqual([
      { id: 1, ok: true, status: { name: "m1" } },
      { id: 2, ok: true },
      { id: 3, ok: true },
      { id: 4, ok: true },
      { id: 5, ok: true },
      { id: 6, ok: false, error: '"peers" must be a non-empty list of member names' },
      { id: 7, ok: false, error: 'unknown op "explode" (want status, drop, delay, heal or fsync-delay)' },
      { id: null, ok: false, error: expect.stringMatching(/^malformed request/) },
    ]);
    expect(calls).toEqual([["drop", ["m2", "m3"], "in"], ["delay", ["m3"], 200], ["heal"], ["fsync", 50]]);
  });
});
