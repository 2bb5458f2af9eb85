import { describe, expect, it } from "vitest";
import { LateRpc, type ClusterRpc } from "./cluster-rpc.ts";

const member = { id: "8e9e05c52164694d", name: "m1", peerUrls: [], clientUrls: [], isLearner: false };

describe("LateRpc", () => {
  it("rejects every call with its text until connected", async () => {
    const rpc = new LateRpc("session s1: not connected");
    await expect(rpc.status("127.0.0.1:2379", 100)).rejects.toThrow("session s1: not connected");
    await expect(rpc.memberList([])).rejects.toThrow("session s1: not connected");
    await expect(rpc.memberAdd([], [])).rejects.toThrow("session s1: not connected");
    await expect(rpc.memberRemove([], "1")).rejects.toThrow("session s1: not connected");
  });

  it("forwards to the connection once connected and leaves closing it to its owner", async () => {
    const calls: string[] = [];
    const target: ClusterRpc = {
      status: () => Promise.reject(new Error("unused")),
      memberList: async (eps) => (calls.push(`list ${eps.join(",")}`), [member]),
      memberAdd: async () => ({ added: member, members: [member] }),
      memberRemove: async (_eps, id) => void calls.push(`remove ${id}`),
      close: () => void calls.push("close"),
    };
    const rpc = new LateRpc("not connected");
    rpc.connect(target);
    expect(await rpc.memberList(["a:1"])).toEqual([member]);
    await rpc.memberRemove([], "2a");
    rpc.close();
    expect(calls).toEqual(["list a:1", "remove 2a"]);
  });
});
