import { describe, expect, it } from "vitest";
import { fakeCheckContext, fakeKey } from "./testing.ts";

describe("fakeCheckContext", () => {
  const keys = [fakeKey("/a/1", "x", { modRevision: 7 }), fakeKey("/a/2", "y"), fakeKey("/ab", "z")];

  it("serves its keys by key and by prefix", async () => {
    const { store } = fakeCheckContext({ keys });
    expect(await store.get("/a/1")).toEqual({
      key: "/a/1",
      value: "x",
      valueBytes: new TextEncoder().encode("x"),
      createRevision: 7,
      modRevision: 7,
      version: 1,
      lease: "0",
    });
    expect(await store.get("/a")).toBeNull();
    expect((await store.list("/a/")).map((k) => k.key)).toEqual(["/a/1", "/a/2"]);
    expect(await store.count("/a")).toBe(3);
    expect(await store.revision()).toBe(7);
  });

  it("rejects status() unless given one, and takes any field outright", async () => {
    await expect(fakeCheckContext().status()).rejects.toThrow("no `status` was given");
    const ctx = fakeCheckContext({ task: "t1", endpoints: ["127.0.0.1:2379"] });
    expect([ctx.task, ctx.endpoints]).toEqual(["t1", ["127.0.0.1:2379"]]);
  });
});
