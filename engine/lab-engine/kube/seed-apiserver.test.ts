// The seeded keyspace through the simulated apiserver: every served resource of the seed lists without a
// decode error, encrypted secrets read back through the seed's EncryptionConfiguration, and the objects the
// lessons show print in the server-side tables. (A lab-engine test: the seed lives here, the apiserver in
// engine/kube/apiserver.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEncryptionConfig } from "../../kube/api/encryption.ts";
import { ApiServer } from "../../kube/apiserver/apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "../../kube/apiserver/testdata/etcd-cluster.ts";
import { toTable } from "../../kube/apiserver/table.ts";
import { builtinResources } from "../../kube/api/resources.ts";
import { EtcdConnection } from "../cluster/etcd-connection.ts";
import { seedKube } from "./seed.ts";

let cluster: TestCluster;
let server: ApiServer;
let conn: EtcdConnection;

describe.skipIf(!etcdAvailable())("the seed through the apiserver", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    cluster = await startCluster(1);
    conn = new EtcdConnection(cluster.endpoints);
    const seeded = await seedKube(conn, { seed: 11, encryptSecrets: true });
    server = await ApiServer.start({
      etcd: cluster.client,
      encryption: loadEncryptionConfig(seeded.encryption!.config),
      compactionIntervalMs: 0,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    conn?.close();
    await cluster?.destroy();
  });

  it("lists every built-in resource without an error, and the seeded custom resources", async () => {
    const k = server.client();
    const counts: Record<string, number> = {};
    for (const r of builtinResources) counts[r.resource] = (await k.list(r.resource, "")).items.length;
    for (const r of ["namespaces", "nodes", "pods", "services", "configmaps", "secrets", "leases", "deployments"])
      expect(counts[r], r).toBeGreaterThan(0);
    expect((await k.list("ippools", "")).items.length).toBeGreaterThan(0);
  });

  it("reads encrypted secrets back through the EncryptionConfiguration", async () => {
    const secrets = (await server.client().list("secrets", "")).items;
    const raw = await cluster.client.get("/registry/secrets/", { prefix: true });
    expect(raw.kvs.some((kv) => new TextDecoder().decode(kv.value.subarray(0, 8)) === "k8s:enc:")).toBe(true);
    expect(secrets.every((s) => typeof s["type"] === "string")).toBe(true);
  });

  it("prints the seeded pods and nodes", async () => {
    const now = Date.now();
    const pods = await server.client().list("pods", "");
    const table = toTable(
      builtinResources.find((r) => r.resource === "pods")!,
      pods.items,
      pods.metadata,
      {
        includeObject: "None",
        now,
      },
    );
    const statuses = (table.rows as { cells: unknown[] }[]).map((r) => r.cells[2]);
    expect(statuses.length).toBe(pods.items.length);
    expect(statuses.every((s) => typeof s === "string" && s !== "")).toBe(true);
  });
});
