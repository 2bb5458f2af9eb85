// Interop with the `etcd3` npm client (a test-only peer, grpc-js underneath with its own copy of etcd's
// protos) against our gRPC server serving the in-memory TEST FIXTURE handlers.
import { Etcd3 } from "etcd3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrpcServer } from "./server.ts";
import { addMemoryEtcd } from "./test-fixtures/memory-etcd.ts";

let server: GrpcServer;
let etcd: Etcd3;

describe("etcd3 npm client → our gRPC server", () => {
  beforeAll(async () => {
    server = new GrpcServer();
    const { port } = await server.listen(0);
    addMemoryEtcd(server, `http://127.0.0.1:${port}`);
    etcd = new Etcd3({ hosts: `127.0.0.1:${port}` });
  });
  afterAll(async () => {
    etcd?.close();
    await server?.close();
  });

  it("put, get, prefix get, delete", async () => {
    await etcd.put("foo").value("bar");
    expect(await etcd.get("foo").string()).toBe("bar");
    await etcd.put("/p/a").value("1");
    await etcd.put("/p/b").value("2");
    expect(await etcd.getAll().prefix("/p/").strings()).toEqual({ "/p/a": "1", "/p/b": "2" });
    await etcd.delete().key("foo");
    expect(await etcd.get("foo").string()).toBeNull();
  });

  it("watch receives put and delete events", async () => {
    const watcher = await etcd.watch().key("wk").create();
    const events: string[] = [];
    const done = new Promise<void>((resolve) => {
      watcher.on("put", (kv) => events.push(`put ${kv.value.toString()}`));
      watcher.on("delete", () => {
        events.push("delete");
        resolve();
      });
    });
    await etcd.put("wk").value("v1");
    await etcd.delete().key("wk");
    await done;
    await watcher.cancel();
    expect(events).toEqual(["put v1", "delete"]);
  });

  it("lease grant and keep-alive", async () => {
    const lease = etcd.lease(10, { autoKeepAlive: false });
    const id = await lease.grant();
    expect(id).toMatch(/^\d+$/);
    const ka = await lease.keepaliveOnce();
    expect(ka.TTL).toBe("60");
    await lease.put("leased").value("x");
    expect(await etcd.get("leased").string()).toBe("x");
    lease.release();
  });
});
