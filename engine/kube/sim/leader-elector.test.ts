import { describe, expect, it } from "vitest";
import { seededRng } from "../../common/rng.ts";
import { ControlPlaneComponent } from "./component.ts";
import type { KubeSimEvent } from "./events.ts";
import { FakeClock, MemoryKubeClient, quorumLostError } from "./testing.ts";
import { realTimings } from "./timings.ts";
import type { LeaseSpec } from "./leader-elector.ts";

function kcm(host: string, clock: FakeClock, api: MemoryKubeClient, events: KubeSimEvent[], seed: number) {
  const working: boolean[] = [];
  const c = new ControlPlaneComponent({
    component: "kube-controller-manager",
    eventSource: "kube-controller-manager",
    host,
    client: () => api,
    clock,
    rng: seededRng(seed),
    timings: realTimings,
    onEvent: (e) => events.push(e),
    work: () => ({ start: () => working.push(true), stop: () => working.push(false) }),
  });
  return { c, working };
}

const spec = (api: MemoryKubeClient) =>
  api.objectsOf("leases", "kube-system").find((l) => l.metadata.name === "kube-controller-manager")?.["spec"] as
    LeaseSpec | undefined;

describe("leader election (client-go semantics, real constants)", () => {
  it("acquires a missing lease, renews every 2 s, exits after the 10 s renew deadline and re-acquires", async () => {
    const clock = new FakeClock();
    const api = new MemoryKubeClient(clock);
    const events: KubeSimEvent[] = [];
    const { c, working } = kcm("k8s-master-1", clock, api, events, 1);
    c.start();
    await clock.until(() => c.status().leader, 5_000);
    const first = spec(api);
    expect(first?.holderIdentity).toBe(c.status().identity);
    expect(first?.holderIdentity).toMatch(/^k8s-master-1_[0-9a-f-]{36}$/);
    expect(first?.leaseDurationSeconds).toBe(15);
    expect(first?.leaseTransitions).toBe(0);
    expect(working).toEqual([true]);

    const renewsBefore = api.calls.get("update leases") ?? 0;
    await clock.advance(10_000);
    expect((api.calls.get("update leases") ?? 0) - renewsBefore).toBe(5);

    api.unwritable = quorumLostError;
    const lostAt = clock.now();
    await clock.until(() => events.some((e) => e.type === "kube.component.exit"), 20_000);
    const held = clock.now() - lostAt;
    expect(held).toBeGreaterThanOrEqual(10_000);
    expect(held).toBeLessThanOrEqual(14_000);
    expect(working).toEqual([true, false]);
    expect(events.filter((e) => e.type === "kube.lease.renew.failed")).toHaveLength(1);
    expect(events.find((e) => e.type === "kube.lease.renew.failed")).toMatchObject({
      error: "Internal error occurred: etcdserver: request timed out",
    });
    expect(c.status()).toMatchObject({ state: "exited", leader: false, simulated: true });

    api.unwritable = null;
    const oldIdentity = first?.holderIdentity;
    const back = clock.now();
    await clock.until(() => c.status().leader, 60_000);
    // A new process (new identity) waits for the old record to go stale for a full lease duration.
    expect(clock.now() - back).toBeGreaterThanOrEqual(10_000 + 15_000);
    const second = spec(api);
    expect(second?.holderIdentity).not.toBe(oldIdentity);
    expect(second?.leaseTransitions).toBe(1);
    expect(c.status().restarts).toBe(1);
    expect(events.filter((e) => e.type === "kube.lease.renew.ok")).toHaveLength(1);
    await c.stop();
  });

  it("a second candidate stands by while the leader renews and takes over only after the lease expires", async () => {
    const clock = new FakeClock();
    const api = new MemoryKubeClient(clock);
    const events: KubeSimEvent[] = [];
    const a = kcm("k8s-master-1", clock, api, events, 1);
    const b = kcm("k8s-master-2", clock, api, events, 2);
    a.c.start();
    await clock.until(() => a.c.status().leader, 5_000);
    b.c.start();
    await clock.advance(60_000);
    expect(b.c.status().leader).toBe(false);
    expect(b.c.status().observedHolder).toBe(a.c.status().identity);
    await a.c.stop(); // the leader's process goes away without releasing
    const gone = clock.now();
    await clock.until(() => b.c.status().leader, 30_000);
    expect(clock.now() - gone).toBeGreaterThanOrEqual(13_000);
    expect(spec(api)).toMatchObject({ holderIdentity: b.c.status().identity, leaseTransitions: 1 });
    await b.c.stop();
  });
});
