import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { seedPlan } from "./seed-plan.ts";
import { unwrapObject } from "../../kube/api/envelope.ts";
import { encryptAescbc } from "../../kube/api/encryption.ts";
import { encryptionKey } from "./seed.ts";

/** planDigest is sha256 over every key and value seedKube writes for `seed`, in order (secrets encrypted
 * under a fixed IV when `encryptSecrets`), and over the nodes, pods and leases the workload keeps alive. */
function planDigest(seed: number, encryptSecrets: boolean): string {
  const plan = seedPlan(seed);
  const h = createHash("sha256");
  const key = encryptionKey(seed);
  const iv = Buffer.alloc(16, 7);
  for (const e of plan.entries) {
    h.update(`${e.key}\0${e.secret ? "secret" : ""}\0`);
    h.update(encryptSecrets && e.secret ? encryptAescbc(e.value, key, "key1", iv) : e.value);
    h.update("\0");
  }
  h.update(JSON.stringify([plan.nodes, plan.pods, plan.leases, plan.createdAt]));
  return h.digest("hex");
}

describe("kube seed plan", () => {
  const plan = seedPlan(1);
  const keys = plan.entries.map((e) => e.key);

  it("is the same for the same seed and differs for another", () => {
    expect(seedPlan(1).entries.map((e) => [e.key, Buffer.from(e.value).toString("hex")])).toEqual(
      plan.entries.map((e) => [e.key, Buffer.from(e.value).toString("hex")]),
    );
    expect(seedPlan(2).entries.map((e) => e.key)).not.toEqual(keys);
  });

  it("is byte-for-byte the pinned keyspace for seeds 1 and 42, plain and with encrypted secrets", () => {
    expect([planDigest(1, false), planDigest(1, true), planDigest(42, false), planDigest(42, true)]).toEqual([
      "f2bf980993b876b65b00963c1115ac938f5eefb87303ea0b99b4ebe6156228e2",
      "bd36b56b29d743009fa86641202b01b77997a4e36a0ea900a76f2e471ff2bfef",
      "60789f5bad6e6286e57b2070b4f9163df506560ae676071c2f0fcaf9a4d116f0",
      "d3a00ff475fd0cd59adc5b8bc1ee7ddb9ad349ff27ad1f1483a6a08d34c57489",
    ]);
  });

  it("lays keys out as kube-apiserver does", () => {
    for (const prefix of [
      "/registry/pods/kube-system/",
      "/registry/deployments/kube-system/coredns",
      "/registry/replicasets/kube-system/coredns-",
      "/registry/services/specs/default/kubernetes",
      "/registry/endpointslices/kube-system/kube-dns-",
      "/registry/configmaps/kube-system/coredns",
      "/registry/secrets/web/db-credentials",
      "/registry/serviceaccounts/kube-system/coredns",
      "/registry/namespaces/kube-node-lease",
      "/registry/minions/k8s-node-1",
      "/registry/leases/kube-node-lease/k8s-node-2",
      "/registry/leases/kube-system/kube-scheduler",
      "/registry/clusterroles/cluster-admin",
      "/registry/clusterrolebindings/system:coredns",
      "/registry/crd.projectcalico.org/ippools/default-ipv4-ippool",
    ]) {
      expect(
        keys.some((k) => k.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("stores built-in kinds as protobuf envelopes and custom resources as JSON", () => {
    for (const e of plan.entries) {
      const env = unwrapObject(e.value);
      if (e.key.startsWith("/registry/crd.projectcalico.org/") || e.key.startsWith("/registry/apiextensions.k8s.io/")) {
        expect(env).toBeNull();
        expect(JSON.parse(new TextDecoder().decode(e.value))).toHaveProperty("kind");
      } else {
        expect(env, e.key).not.toBeNull();
      }
    }
    const kinds = (prefix: string) =>
      new Set(plan.entries.filter((e) => e.key.startsWith(prefix)).map((e) => unwrapObject(e.value)?.kind));
    expect(kinds("/registry/pods/")).toEqual(new Set(["Pod"]));
    expect(kinds("/registry/minions/")).toEqual(new Set(["Node"]));
    expect(kinds("/registry/leases/")).toEqual(new Set(["Lease"]));
    expect(unwrapObject(plan.entries.find((e) => e.key.startsWith("/registry/leases/"))!.value)?.apiVersion).toBe(
      "coordination.k8s.io/v1",
    );
  });

  it("names pods after their ReplicaSet and DaemonSet like controllers do", () => {
    const rs = keys
      .find((k) => k.startsWith("/registry/replicasets/kube-system/coredns-"))!
      .split("/")
      .at(-1)!;
    expect(rs).toMatch(/^coredns-[bcdfghjklmnpqrstvwxz2456789]{10}$/);
    expect(keys.filter((k) => k.startsWith(`/registry/pods/kube-system/${rs}-`))).toHaveLength(2);
    expect(keys.filter((k) => /\/registry\/pods\/kube-system\/kube-proxy-[a-z0-9]{5}$/.test(k))).toHaveLength(3);
    expect(plan.entries.filter((e) => e.secret).length).toBe(3);
  });
});
