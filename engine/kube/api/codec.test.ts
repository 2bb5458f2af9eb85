import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CodecError,
  decodeObject,
  encodeObject,
  encodeProtobuf,
  messageOf,
  StorageDecodeError,
  unknownFields,
  UnknownFieldsError,
} from "./codec.ts";
import { unwrapObject } from "./envelope.ts";
import { message, type Field, type ValueType } from "./message.ts";
import type { JsonValue, KubeObject } from "./object.ts";
import { builtinResources, crdResource, type ResourceInfo } from "./resources.ts";

const resource = (kind: string): ResourceInfo => builtinResources.find((r) => r.kind === kind)!;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("storage codec", () => {
  it("encodes a small ConfigMap to the hand-checked bytes and back", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "a",
        namespace: "b",
        uid: "u",
        resourceVersion: "77",
        creationTimestamp: "2026-01-12T09:12:00Z",
      },
      data: { k: "v" },
    };
    const v = encodeObject(resource("ConfigMap"), cm);
    expect(hex(v)).toBe(
      [
        "6b387300", // k8s\0
        "0a0f", // runtime.Unknown.typeMeta
        "0a027631", // apiVersion "v1"
        "1209436f6e6669674d6170", // kind "ConfigMap"
        "1225", // raw: the ConfigMap (37 bytes)
        "0a1b", // metadata (27 bytes)
        "0a0161", // name "a"
        "1200", // generateName ""
        "1a0162", // namespace "b"
        "2200", // selfLink "" (never stored with a value)
        "2a0175", // uid "u"
        "3200", // resourceVersion "" (never stored with a value)
        "3800", // generation 0
        "4208", // creationTimestamp
        "08e0f592cb06", // seconds 1768209120
        "1000", // nanos 0
        "1206", // data entry
        "0a016b", // key "k"
        "120176", // value "v"
        "1a00", // contentEncoding ""
        "2200", // contentType ""
      ].join(""),
    );
    const { resourceVersion: _, ...meta } = cm.metadata;
    expect(decodeObject(v)).toEqual({ ...cm, metadata: meta });
  });

  it("keeps Time to the second and MicroTime to the microsecond, and omits the zero time", () => {
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "n", namespace: "kube-node-lease" },
      spec: {
        holderIdentity: "n",
        leaseDurationSeconds: 40,
        renewTime: "2026-01-12T09:12:00.123456789Z",
        acquireTime: "2026-01-12T10:12:00+01:00",
      },
    };
    const back = decodeObject(encodeObject(resource("Lease"), lease));
    expect(back).toEqual({
      ...lease,
      spec: {
        holderIdentity: "n",
        leaseDurationSeconds: 40,
        acquireTime: "2026-01-12T09:12:00.000000Z",
        renewTime: "2026-01-12T09:12:00.123456Z",
      },
    });
    const ev = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e", creationTimestamp: "2026-01-12T09:12:00.9Z" },
    };
    const evBack = decodeObject(encodeObject(resource("Event"), ev));
    expect(evBack.metadata).toEqual({ name: "e", creationTimestamp: "2026-01-12T09:12:00Z" });
    expect(evBack).not.toHaveProperty("eventTime");
    expect(evBack).toMatchObject({ involvedObject: {}, source: {}, reportingComponent: "", reportingInstance: "" });
  });

  it("stores Secret data as bytes, merges stringData into data, and rejects bad base64", () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "web" },
      type: "Opaque",
      data: { a: Buffer.from("x\u0000y").toString("base64") },
      stringData: { b: "plain" },
    };
    const v = encodeObject(resource("Secret"), secret);
    expect(Buffer.from(v).includes(Buffer.from("plain"))).toBe(true);
    expect(decodeObject(v)).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "web" },
      data: { a: "eAB5", b: "cGxhaW4=" },
      type: "Opaque",
    });
    expect(() => encodeObject(resource("Secret"), { ...secret, data: { a: "not base64!" } })).toThrow(
      new CodecError("illegal base64 data at input byte 3"),
    );
  });

  it("writes IntOrString, Quantity and map entries as gogo does", () => {
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: {
        ports: [
          { port: 80, targetPort: "http" },
          { port: 81, targetPort: 8081 },
        ],
        selector: { b: "2", a: "1" },
      },
    };
    const back = decodeObject(encodeObject(resource("Service"), svc)) as unknown as { spec: Record<string, JsonValue> };
    expect(back.spec.ports).toEqual([
      { port: 80, targetPort: "http" },
      { port: 81, targetPort: 8081 },
    ]);
    expect(Object.keys(back.spec.selector as object)).toEqual(["a", "b"]);
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "n" },
      status: { capacity: { cpu: "0.5", memory: "1.5Gi" } },
    };
    expect(
      (decodeObject(encodeObject(resource("Node"), node)) as unknown as { status: { capacity: JsonValue } }).status
        .capacity,
    ).toEqual({
      cpu: "500m",
      memory: "1536Mi",
    });
  });

  it("names every field its kind does not have, as strict decoding does", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", colour: "red" },
      spec: {
        containers: [
          { name: "a", image: "i", livenessProbe: { httpGet: { port: 80 }, periodSeconds: 3 } },
          { name: "b", imag: "i" },
        ],
        volumes: [
          { name: "v", hostPath: { path: "/x" }, configMap: { name: "c" } },
          { name: "w", emptyDirr: {} },
        ],
        foo: 1,
      },
    };
    expect(unknownFields(resource("Pod"), pod)).toEqual([
      "metadata.colour",
      "spec.containers[1].imag",
      "spec.volumes[1].emptyDirr",
      "spec.foo",
    ]);
    expect(() => encodeObject(resource("Pod"), pod)).toThrow(
      'strict decoding error: unknown field "metadata.colour", unknown field "spec.containers[1].imag", unknown field "spec.volumes[1].emptyDirr", unknown field "spec.foo"',
    );
    expect(() => encodeObject(resource("Pod"), pod)).toThrow(UnknownFieldsError);
  });

  it("rejects values of the wrong type with Go's json error", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", ports: [{ containerPort: "80" }] }] },
    };
    expect(() => encodeObject(resource("Pod"), pod)).toThrow(
      "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32",
    );
    const bad = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", resources: { limits: { cpu: "lots" } } }] },
    };
    expect(() => encodeObject(resource("Pod"), bad)).toThrow(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });

  it("stores custom resources as sorted, HTML-escaped JSON and a newline; CRDs keep their field order", () => {
    const r = crdResource({
      group: "example.com",
      version: "v1",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets" },
    });
    const w = {
      kind: "Widget",
      apiVersion: "example.com/v1",
      metadata: { resourceVersion: "9", name: "w", namespace: "d" },
      spec: { z: "<&>", a: [{ y: 1, b: 2 }] },
    };
    const text = new TextDecoder().decode(encodeObject(r, w));
    expect(text).toBe(
      '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"d"},"spec":{"a":[{"b":2,"y":1}],"z":"\\u003c\\u0026\\u003e"}}\n',
    );
    expect(decodeObject(new TextEncoder().encode(text))).toEqual({ ...w, metadata: { name: "w", namespace: "d" } });
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "x", uid: "u" },
      spec: { names: { plural: "x", kind: "X" } },
    };
    expect(new TextDecoder().decode(encodeObject(resource("CustomResourceDefinition"), crd))).toBe(
      `${JSON.stringify(crd)}\n`,
    );
  });

  it("refuses values that are not Kubernetes objects", () => {
    expect(() => decodeObject(new TextEncoder().encode("hello"))).toThrow(StorageDecodeError);
    const rangeLike = encodeProtobuf(
      { apiVersion: "v1", kind: "ConfigMap" },
      { apiVersion: "v1", kind: "ConfigMap", metadata: {} },
    );
    const env = unwrapObject(rangeLike)!;
    expect(env.kind).toBe("ConfigMap");
    const unknownKind = Buffer.from(hex(rangeLike).replace("436f6e6669674d6170", "576964676574467878"), "hex");
    expect(() => decodeObject(unknownKind)).toThrow('no kind "WidgetFxx" is registered for version "v1"');
  });
});

/** arbitraryFor generates JSON of message `name` (a random subset of its fields, nested up to `depth`). */
function arbitraryFor(name: string, depth: number): fc.Arbitrary<Record<string, JsonValue>> {
  const msg = message(name);
  const parts: Record<string, fc.Arbitrary<JsonValue>> = {};
  for (const f of msg.fields) {
    if (f.inline) continue;
    const one = valueArb(f, f.type, depth);
    if (!one) continue;
    parts[f.json] = f.repeated ? fc.array(one, { maxLength: 2 }) : one;
  }
  return fc.record(parts, { requiredKeys: [] }) as fc.Arbitrary<Record<string, JsonValue>>;
}

const str = fc.string({ maxLength: 6 });
const times = fc
  .integer({ min: 0, max: 4_000_000_000 })
  .map((s) => new Date(s * 1000).toISOString().replace(".000Z", "Z"));

function valueArb(f: Field, t: ValueType, depth: number): fc.Arbitrary<JsonValue> | null {
  if ("message" in t) return depth > 0 ? arbitraryFor(t.message, depth - 1) : null;
  if ("map" in t) {
    const v = valueArb(f, t.map, depth);
    return v ? fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), v, { maxKeys: 3 }) : null;
  }
  switch (t.scalar) {
    case "s":
      return str;
    case "i":
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case "l":
      return fc.maxSafeInteger();
    case "b":
      return fc.boolean();
    case "y":
      return bytes;
    case "Time":
      return times;
    case "MicroTime":
      return fc
        .tuple(times, fc.integer({ min: 0, max: 999_999 }))
        .map(([s, us]) => s.replace("Z", `.${String(us).padStart(6, "0")}Z`));
    case "Quantity":
      return fc.constantFrom("100m", "1", "70Mi", "2Gi", "1500", "2k", "1e3", "0");
    case "IntOrString":
      return fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.constantFrom("http", "50%"));
    case "FieldsV1":
      return fc.constant({ "f:metadata": { "f:labels": {} } });
  }
}

const bytes = fc.uint8Array({ minLength: 1, maxLength: 9 }).map((b) => Buffer.from(b).toString("base64"));
const nonEmpty = fc.string({ minLength: 1, maxLength: 6 });
const labels = fc.dictionary(nonEmpty, str, { minKeys: 1, maxKeys: 3 });
const objectMeta = fc.record(
  {
    name: nonEmpty,
    namespace: nonEmpty,
    uid: fc.uuid(),
    generation: fc.integer({ min: 1, max: 1000 }),
    creationTimestamp: times,
    labels,
    annotations: labels,
    finalizers: fc.array(nonEmpty, { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: ["name"] },
);

describe("storage codec properties", () => {
  const kinds = builtinResources.filter((r) => r.storage === "protobuf");
  const nameOf = (r: ResourceInfo) => messageOf({ apiVersion: r.group ? `${r.group}/v1` : "v1", kind: r.kind });

  it("has a schema for every built-in kind", () => {
    for (const r of kinds) expect(nameOf(r), r.kind).toBeDefined();
  });

  it("JSON → protobuf → JSON → protobuf is stable for random objects of every kind", () => {
    for (const r of kinds) {
      fc.assert(
        fc.property(arbitraryFor(nameOf(r)!, 4), (body) => {
          const obj = { apiVersion: r.group ? `${r.group}/v1` : "v1", kind: r.kind, ...body } as KubeObject;
          const bytes = encodeObject(r, obj);
          const json = decodeObject(bytes);
          expect(hex(encodeObject(r, json))).toBe(hex(bytes));
          expect(decodeObject(encodeObject(r, json))).toEqual(json);
        }),
        { numRuns: 25 },
      );
    }
  });

  it("JSON → protobuf → JSON is the identity on objects as the apiserver serves them", () => {
    const configMap = fc.record(
      {
        metadata: objectMeta,
        data: labels,
        binaryData: fc.dictionary(nonEmpty, bytes, {
          minKeys: 1,
          maxKeys: 2,
        }),
      },
      { requiredKeys: ["metadata"] },
    );
    const lease = fc.record({
      metadata: objectMeta,
      spec: fc.record(
        {
          holderIdentity: str,
          leaseDurationSeconds: fc.integer({ min: 0, max: 3600 }),
          renewTime: fc
            .tuple(times, fc.integer({ min: 0, max: 999_999 }))
            .map(([t, us]) => t.replace("Z", `.${String(us).padStart(6, "0")}Z`)),
          leaseTransitions: fc.integer({ min: 0, max: 9 }),
        },
        { requiredKeys: [] },
      ),
    });
    const rule = fc.record(
      {
        verbs: fc.array(nonEmpty, { minLength: 1, maxLength: 3 }),
        apiGroups: fc.array(str, { minLength: 1, maxLength: 2 }),
        resources: fc.array(nonEmpty, { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: ["verbs"] },
    );
    const clusterRole = fc.record({ metadata: objectMeta, rules: fc.array(rule, { minLength: 1, maxLength: 3 }) });
    for (const [kind, arb] of [
      ["ConfigMap", configMap],
      ["Lease", lease],
      ["ClusterRole", clusterRole],
    ] as const) {
      const r = resource(kind);
      fc.assert(
        fc.property(arb as fc.Arbitrary<Record<string, JsonValue>>, (body) => {
          const obj = { apiVersion: r.group ? `${r.group}/v1` : "v1", kind, ...body } as KubeObject;
          expect(decodeObject(encodeObject(r, obj))).toEqual(obj);
        }),
        { numRuns: 100 },
      );
    }
  });
});
