import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// A contract test: the lab's client against the member's own fault channel, the one place the lab engine reads
// the store's insides (the channel is lab-only; real etcd has none).
// eslint-disable-next-line no-restricted-imports
import { ControlChannel, type ControlTarget, type DropDirection } from "../../store/pkg/control-channel.ts";
import { ControlClient, ControlError } from "./control-client.ts";

// The member side is the real fault channel; its target records what it was told, like a member would.
class RecordingTarget implements ControlTarget {
  dropIn = new Set<string>();
  dropOut = new Set<string>();
  delays: Record<string, number> = {};
  fsync = 0;
  status(): Record<string, unknown> {
    return {
      name: "m1",
      memberId: "1",
      drop: { in: [...this.dropIn], out: [...this.dropOut] },
      delayMs: this.delays,
      fsyncDelayMs: this.fsync,
    };
  }
  drop(peers: string[], d: DropDirection): void {
    for (const p of peers) {
      if (d !== "out") this.dropIn.add(p);
      if (d !== "in") this.dropOut.add(p);
    }
  }
  delay(peers: string[], ms: number): void {
    for (const p of peers) this.delays[p] = ms;
  }
  heal(): void {
    this.dropIn.clear();
    this.dropOut.clear();
    this.delays = {};
  }
  setFsyncDelay(ms: number): void {
    this.fsync = ms;
  }
}

const dir = mkdtempSync(join(tmpdir(), "etcd-lab-ctl-"));
const target = new RecordingTarget();
const channel = await ControlChannel.listen(join(dir, "m1.sock"), target);
afterAll(() => channel.close());

describe("fault channel client", () => {
  it("applies a whole fault set and reads it back", async () => {
    const c = new ControlClient(join(dir, "m1.sock"));
    target.delay(["m9"], 1);
    await c.apply({ dropIn: ["m2", "m3"], dropOut: ["m2"], delayMs: { m3: 200, m2: 200 }, fsyncDelayMs: 50 });
    const s = await c.status();
    expect(s.drop.in.sort()).toEqual(["m2", "m3"]);
    expect(s.drop.out).toEqual(["m2"]);
    expect(s.delayMs).toEqual({ m3: 200, m2: 200 });
    expect(s.fsyncDelayMs).toBe(50);
    c.close();
  });

  it("surfaces the member's error text and a missing socket", async () => {
    const c = new ControlClient(join(dir, "m1.sock"));
    await expect(c.request({ op: "delay", peers: [], ms: 1 })).rejects.toThrow(
      '"peers" must be a non-empty list of member names',
    );
    c.close();
    const missing = new ControlClient(join(dir, "nope.sock"), 500);
    await expect(missing.status()).rejects.toBeInstanceOf(ControlError);
  });
});
