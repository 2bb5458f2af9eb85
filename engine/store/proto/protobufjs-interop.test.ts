// Cross-check every generated codec against an independent implementation (protobufjs, a test-only peer
// that comes with @grpc/proto-loader): random messages built from our field descriptors must encode to the
// same bytes in both, and each side must decode the other's bytes to the same message.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import type { FieldInfo, MessageType } from "./message-type.ts";

const protoRoot = import.meta.dirname;
const genDir = join(protoRoot, "gen");
const protoFiles = [
  "etcdserverpb/rpc.proto",
  "etcdserverpb/raft_internal.proto",
  "etcdserverpb/etcdserver.proto",
  "mvccpb/kv.proto",
  "authpb/auth.proto",
  "membershippb/membership.proto",
  "leasepb/lease.proto",
  "raftpb/raft.proto",
  "walpb/record.proto",
  "snappb/snap.proto",
  "v3lockpb/v3lock.proto",
  "v3electionpb/v3election.proto",
  "grpc/health/v1/health.proto",
];

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(protoRoot, target);
  root.loadSync(protoFiles, { keepCase: true });
  root.resolveAll();
  return root;
}

async function allMessageTypes(): Promise<MessageType<unknown>[]> {
  const out: MessageType<unknown>[] = [];
  for (const name of readdirSync(genDir)) {
    const mod = (await import(join(genDir, name))) as Record<string, unknown>;
    for (const v of Object.values(mod)) {
      if (v && typeof v === "object" && "typeName" in v && "fields" in v) out.push(v as MessageType<unknown>);
    }
  }
  return out;
}

type Obj = Record<string, unknown>;
const INT64 = { min: -(1n << 63n), max: (1n << 63n) - 1n };
const UINT64 = { min: 0n, max: (1n << 64n) - 1n };

function scalarArb(f: FieldInfo): fc.Arbitrary<unknown> {
  switch (f.scalar) {
    case "bool":
      return fc.boolean();
    case "string":
      return fc.string({ unit: "grapheme", maxLength: 12 });
    case "bytes":
      return fc.uint8Array({ maxLength: 12 });
    case "int32":
    case "sint32":
    case "sfixed32":
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case "uint32":
    case "fixed32":
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case "double":
      return fc.double({ noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x));
    case "float":
      return fc.float({ noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x));
    default: {
      const unsigned = f.scalar === "uint64" || f.scalar === "fixed64";
      if (f.long === "number")
        return fc.integer({ min: unsigned ? 0 : Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
      return fc.bigInt(unsigned ? UINT64 : INT64);
    }
  }
}

function valueArb(f: FieldInfo, depth: number): fc.Arbitrary<unknown> {
  if (f.kind === "message") return messageArb(f.message!(), depth - 1);
  if (f.kind === "enum") {
    const values = Object.values(f.enumType!()).filter((v): v is number => typeof v === "number");
    return fc.constantFrom(...values);
  }
  return scalarArb(f);
}

function messageArb(T: MessageType<unknown>, depth: number): fc.Arbitrary<Obj> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  const oneofs = new Map<string, FieldInfo[]>();
  for (const f of T.fields) {
    if (f.oneof) {
      oneofs.set(f.oneof, [...(oneofs.get(f.oneof) ?? []), f]);
      continue;
    }
    if (f.kind === "message" && depth <= 0) continue;
    parts[f.localName] = f.repeated
      ? fc.array(valueArb(f, depth), { maxLength: 3 })
      : f.kind === "message"
        ? fc.option(valueArb(f, depth), { nil: undefined })
        : valueArb(f, depth);
  }
  for (const [name, members] of oneofs) {
    const usable = members.filter((m) => m.kind !== "message" || depth > 0);
    if (usable.length === 0) continue;
    parts[`$oneof:${name}`] = fc.option(
      fc.oneof(...usable.map((m) => valueArb(m, depth).map((v) => [m.localName, v] as const))),
      { nil: undefined },
    );
  }
  return fc.record(parts).map((rec) => {
    const init: Obj = {};
    for (const [k, v] of Object.entries(rec)) {
      if (k.startsWith("$oneof:")) {
        if (v) init[(v as [string, unknown])[0]] = (v as [string, unknown])[1];
      } else if (v !== undefined) {
        init[k] = v;
      }
    }
    return T.create(init) as Obj;
  });
}

const isDefault = (f: FieldInfo, v: unknown): boolean =>
  v === 0 || v === 0n || v === false || v === "" || (v instanceof Uint8Array && v.length === 0);

/** toPbjs turns our message into a protobufjs plain object holding exactly the fields we write. */
function toPbjs(T: MessageType<unknown>, m: Obj, proto2: boolean): Obj {
  const out: Obj = {};
  for (const f of T.fields) {
    const v = m[f.localName];
    if (v === undefined) continue;
    const conv = (x: unknown): unknown =>
      f.kind === "message"
        ? toPbjs(f.message!(), x as Obj, f.message!().typeName.split(".")[0] !== undefined && isProto2(f.message!()))
        : typeof x === "bigint"
          ? x.toString()
          : x;
    if (f.repeated) {
      if ((v as unknown[]).length) out[f.name] = (v as unknown[]).map(conv);
    } else if (f.oneof || f.kind === "message") {
      out[f.name] = conv(v);
    } else if (proto2 ? !(v instanceof Uint8Array && v.length === 0) : !isDefault(f, v)) {
      out[f.name] = conv(v);
    }
  }
  return out;
}

const proto2Packages = new Set(["raftpb", "walpb", "snappb"]);
const proto2Messages = new Set(["etcdserverpb.Metadata"]);
const isProto2 = (T: MessageType<unknown>): boolean =>
  proto2Packages.has(T.typeName.split(".")[0]!) || proto2Messages.has(T.typeName);

describe("generated codecs vs protobufjs", async () => {
  const root = loadRoot();
  const types = await allMessageTypes();

  it("found every message type", () => {
    expect(types.length).toBeGreaterThan(140);
  });

  for (const T of types) {
    it(`${T.typeName}: same bytes both ways`, () => {
      const P = root.lookupType(T.typeName);
      fc.assert(
        fc.property(messageArb(T, 3), (m) => {
          const ours = T.encode(m);
          const theirs = P.encode(P.fromObject(toPbjs(T, m, isProto2(T)))).finish();
          expect(Buffer.from(ours).toString("hex")).toBe(Buffer.from(theirs).toString("hex"));
          expect(T.decode(theirs)).toEqual(m);
          P.decode(ours);
        }),
        { numRuns: 25 },
      );
    });
  }
});
