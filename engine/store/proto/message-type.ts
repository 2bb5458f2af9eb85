// message-type: the runtime shape of a generated message codec and of a service method, plus the field
// descriptors that descriptor-driven code (json.ts) walks. The codecs themselves are hand-rolled per message
// in gen/*.ts; nothing in the encode/decode hot path looks at these descriptors.
import type { Reader, Writer } from "./wire.ts";

/** ScalarType names the protobuf scalar types. */
export type ScalarType =
  | "double"
  | "float"
  | "int32"
  | "int64"
  | "uint32"
  | "uint64"
  | "sint32"
  | "sint64"
  | "fixed32"
  | "fixed64"
  | "sfixed32"
  | "sfixed64"
  | "bool"
  | "string"
  | "bytes";

/** EnumObject is a generated TypeScript enum object: value → name and name → value. */
export type EnumObject = Readonly<Record<string | number, string | number>>;

/** FieldInfo describes one field of a message for generic code (JSON printing and parsing). */
export interface FieldInfo {
  /** no is the field number. */
  readonly no: number;
  /** name is the name in the .proto file (`range_end`): proto JSON names and Go json tags use it. */
  readonly name: string;
  /** localName is the TypeScript property (`rangeEnd`), also the lowerCamel proto3 JSON name. */
  readonly localName: string;
  /** kind says which of scalar / enum / message the value is. */
  readonly kind: "scalar" | "enum" | "message";
  /** scalar is the scalar type (kind "scalar"). */
  readonly scalar?: ScalarType;
  /** long says how a 64-bit scalar is held in TypeScript: "bigint", or "number" ([jstype = JS_NUMBER]). */
  readonly long?: "number" | "bigint";
  /** repeated marks a repeated field (always an array in TypeScript). */
  readonly repeated: boolean;
  /** oneof names the oneof group the field belongs to, if any. */
  readonly oneof?: string;
  /** message returns the field's message type (kind "message"); a thunk, since types refer to each other. */
  readonly message?: () => MessageType<unknown>;
  /** enumType returns the field's enum object (kind "enum"). */
  readonly enumType?: () => EnumObject;
}

/**
 * MessageType is the codec generated for one message type `T`. encode/decode are the public entry points;
 * write/read let a generated codec embed another (and let gRPC framing write straight into a Writer).
 */
export interface MessageType<T> {
  /** typeName is the fully qualified proto name, e.g. `etcdserverpb.RangeRequest`. */
  readonly typeName: string;
  /** fields lists the fields in declaration order, the order both JSON forms print them in. */
  readonly fields: readonly FieldInfo[];
  /** create returns a message with proto3 defaults, overridden by init (whose arrays it takes over). */
  create(init?: Partial<T>): T;
  /** encode returns the canonical binary encoding of m. */
  encode(m: T): Uint8Array;
  /** decode parses bytes; unknown fields are skipped. Throws ProtoDecodeError on malformed input. */
  decode(bytes: Uint8Array): T;
  /** write appends m's fields (no length prefix) to w. */
  write(m: T, w: Writer): void;
  /** read parses fields from r up to end, merging into `into` when given (protobuf merge semantics). */
  read(r: Reader, end: number, into?: T): T;
}

/** MethodInfo describes one RPC: its HTTP/2 path, its streaming shape and its message codecs. */
export interface MethodInfo<Req, Res> {
  /** path is `/<package>.<Service>/<Method>`, the gRPC :path. */
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestType: MessageType<Req>;
  readonly responseType: MessageType<Res>;
}
