import { describe, expect, it } from "vitest";
import { decodeObject, encodeJson, encodeProtobuf } from "../../kube/api/codec.ts";
import { hasProtoPrefix } from "../../kube/api/envelope.ts";
import type { JsonValue, KubeObject } from "../../kube/api/object.ts";
import { decryptAescbc, encryptAescbc, loadEncryptionConfig } from "../../kube/api/encryption.ts";
import { seedPlan } from "./seed-plan.ts";
import { encryptionConfig, encryptionKey } from "./seed.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** reencode stores a decoded stored value again, the way the apiserver would. */
function reencode(value: Uint8Array, key: string): Uint8Array {
  const o = decodeObject(value);
  return hasProtoPrefix(value) ? encodeProtobuf(o, o) : encodeJson(o, o, !key.includes("/apiextensions.k8s.io/"));
}

describe("the seed through the storage codec", () => {
  it("decodes every value the seed writes and re-encodes it to the identical bytes", () => {
    for (const seed of [1, 7, 42]) {
      const entries = seedPlan(seed).entries;
      expect(entries.length).toBeGreaterThan(90);
      for (const e of entries) expect(hex(reencode(e.value, e.key)), e.key).toBe(hex(e.value));
    }
  });

  it("decodes to the JSON the apiserver serves: Go field order, omitempty, no resourceVersion", () => {
    const e = seedPlan(1).entries.find((x) => x.key.startsWith("/registry/pods/web/"))!;
    const pod = decodeObject(e.value) as KubeObject & { spec: Record<string, JsonValue>; status: JsonValue };
    expect(Object.keys(pod)).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(Object.keys(pod.metadata)).toEqual([
      "name",
      "generateName",
      "namespace",
      "uid",
      "creationTimestamp",
      "labels",
      "ownerReferences",
    ]);
    expect(pod.metadata.ownerReferences).toEqual([
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: pod.metadata.generateName!.slice(0, -1),
        uid: expect.any(String),
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const container = (pod.spec.containers as Record<string, JsonValue>[])[0]!;
    expect(container).toEqual({
      name: "nginx",
      image: "docker.io/library/nginx:1.27",
      ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
      resources: {},
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      imagePullPolicy: "IfNotPresent",
    });
    expect(pod.spec).not.toHaveProperty("priorityClassName");
    expect((pod.status as { containerStatuses: JsonValue[] }).containerStatuses[0]).toMatchObject({
      ready: true,
      restartCount: 0,
      imageID: "",
      started: true,
      lastState: {},
    });
  });
});

describe("the seed's encryption at rest", () => {
  it("is what its EncryptionConfiguration reads, and what it writes the seed reads", () => {
    const key = encryptionKey(1);
    const t = loadEncryptionConfig(encryptionConfig("key1", key)).transformerFor("secrets");
    const secret = seedPlan(1).entries.find((e) => e.key === "/registry/secrets/web/db-credentials")!;
    const stored = encryptAescbc(secret.value, key, "key1");
    expect(t.fromStorage(stored, secret.key)).toEqual({ plain: secret.value, stale: false });
    expect(decryptAescbc(t.toStorage(secret.value, secret.key), key)).toEqual({ keyName: "key1", plain: secret.value });
    expect(decodeObject(t.fromStorage(stored).plain)).toMatchObject({
      kind: "Secret",
      data: { username: Buffer.from("web").toString("base64") },
      type: "Opaque",
    });
  });
});
