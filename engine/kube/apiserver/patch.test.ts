// The patch types: JSON merge patch, JSON patch and strategic merge patch (merge keys, directives).
import { describe, expect, it } from "vitest";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch.ts";

const pod = {
  metadata: { name: "p", labels: { a: "1", b: "2" }, finalizers: ["x"] },
  spec: {
    containers: [
      {
        name: "app",
        image: "app:1",
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
        ],
        ports: [{ containerPort: 80 }],
      },
      { name: "side", image: "side:1", volumeMounts: [{ name: "v", mountPath: "/data" }] },
    ],
    tolerations: [{ key: "t1" }],
  },
};

describe("mergePatch", () => {
  it("merges maps, deletes on null, replaces lists", () => {
    expect(mergePatch(pod, { metadata: { labels: { a: null, c: "3" } }, spec: { tolerations: [] } })).toMatchObject({
      metadata: { labels: { b: "2", c: "3" } },
      spec: { tolerations: [] },
    });
  });
});

describe("strategicMergePatch", () => {
  it("merges containers by name and env by name, keeps the rest", () => {
    const out = strategicMergePatch(pod, {
      spec: {
        containers: [
          {
            name: "app",
            image: "app:2",
            env: [
              { name: "B", value: "3" },
              { name: "C", value: "4" },
            ],
          },
        ],
      },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ["app", "app:2"],
      ["side", "side:1"],
    ]);
    expect(out.spec.containers[0]!.env).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "3" },
      { name: "C", value: "4" },
    ]);
  });

  it("handles $patch delete/replace, $setElementOrder, $deleteFromPrimitiveList, and lists without a merge key", () => {
    const out = strategicMergePatch(pod, {
      spec: {
        "$setElementOrder/containers": [{ name: "side" }, { name: "app" }],
        containers: [{ name: "app", $patch: "delete" }],
        tolerations: [{ key: "t2" }],
      },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(["side"]);
    expect(out.spec.tolerations).toEqual([{ key: "t2" }]);
    const replaced = strategicMergePatch(pod, { metadata: { labels: { $patch: "replace", z: "9" } } }) as typeof pod;
    expect(replaced.metadata.labels).toEqual({ z: "9" });
    const ordered = strategicMergePatch(pod, {
      spec: { "$setElementOrder/containers": [{ name: "side" }, { name: "app" }] },
    }) as typeof pod;
    expect(ordered.spec.containers.map((c) => c.name)).toEqual(["side", "app"]);
    const fin = strategicMergePatch(pod, { metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] } }) as typeof pod;
    expect(fin.metadata.finalizers).toEqual([]);
    const added = strategicMergePatch(pod, { metadata: { finalizers: ["y"] } }) as typeof pod;
    expect(added.metadata.finalizers).toEqual(["x", "y"]);
    const ports = strategicMergePatch(pod, {
      spec: { containers: [{ name: "app", ports: [{ containerPort: 443 }] }] },
    }) as typeof pod;
    expect(ports.spec.containers[0]!.ports).toEqual([{ containerPort: 80 }, { containerPort: 443 }]);
  });
});

describe("jsonPatch", () => {
  it("applies add, replace, remove, test; a failed op throws", () => {
    const out = jsonPatch(pod, [
      { op: "add", path: "/metadata/labels/c", value: "3" },
      { op: "replace", path: "/spec/containers/0/image", value: "app:9" },
      { op: "remove", path: "/spec/tolerations" },
      { op: "test", path: "/metadata/name", value: "p" },
    ]) as typeof pod;
    expect(out.metadata.labels).toEqual({ a: "1", b: "2", c: "3" });
    expect(out.spec.containers[0]!.image).toBe("app:9");
    expect(out.spec.tolerations).toBeUndefined();
    expect(pod.spec.tolerations).toEqual([{ key: "t1" }]);
    expect(() => jsonPatch(pod, [{ op: "remove", path: "/nope" }])).toThrow(PatchError);
    expect(() => jsonPatch(pod, [{ op: "test", path: "/metadata/name", value: "q" }])).toThrow(
      "testing value /metadata/name failed",
    );
  });
});
