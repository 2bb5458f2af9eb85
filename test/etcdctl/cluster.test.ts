// startCluster and TestCluster.start when a port handed out by freePorts is taken before the member binds it:
// the member exits ("address already in use") and the cluster starts again on fresh ports.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it, vi } from "vitest";
import type * as Ports from "../../engine/lab-engine/cluster/ports.ts";
import { TestCluster } from "../member/harness.ts";
import { startCluster } from "./cluster.ts";

const taken = vi.hoisted(() => ({ servers: [] as Server[], ports: [] as number[], armed: false }));

// The first call of freePorts after `armed` is set: its lowest port (m1's client port once sorted) is taken
// right away, by a server that accepts connections and never answers.
vi.mock("../../engine/lab-engine/cluster/ports.ts", async (importOriginal) => {
  const real = await importOriginal<typeof Ports>();
  return {
    freePorts: async (n: number): Promise<number[]> => {
      const got = await real.freePorts(n);
      if (taken.armed) {
        taken.armed = false;
        const port = Math.min(...got);
        taken.servers.push(await hold(port));
        taken.ports.push(port);
      }
      return got;
    },
  };
});

/** held are the connections the taking servers accepted (and never answer). */
const held = new Set<Socket>();

function hold(port: number): Promise<Server> {
  const s = createServer((conn) => {
    conn.on("error", () => {});
    held.add(conn);
  });
  return new Promise((resolve, reject) => {
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

afterAll(async () => {
  for (const conn of held) conn.destroy();
  await Promise.all(taken.servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

describe("a port taken between freePorts and the member's bind", () => {
  it("startCluster starts again on fresh ports", { timeout: 60_000 }, async () => {
    taken.armed = true;
    const c = await startCluster({ kind: "ours", members: 1 });
    try {
      expect(taken.armed).toBe(false);
      expect(c.endpoints).not.toContain(String(taken.ports.at(-1)));
      const res = await fetch(`${c.members[0]?.clientUrl}/health`);
      expect(await res.json()).toMatchObject({ health: "true" });
    } finally {
      await c.stop();
    }
  });

  it("TestCluster.start starts again on fresh ports", { timeout: 60_000 }, async () => {
    taken.armed = true;
    const c = await TestCluster.start({ kind: "ours", size: 1 });
    try {
      expect(taken.armed).toBe(false);
      expect(c.endpoint("m1")).not.toBe(`127.0.0.1:${taken.ports.at(-1)}`);
      expect((await c.httpGet("m1", "/health")).body).toContain('"health":"true"');
    } finally {
      await c.destroy();
    }
  });
});
