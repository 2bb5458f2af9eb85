// A small builder for hand-written protobuf messages on top of the shared wire runtime: the Kubernetes
// objects we seed are encoded field by field, in field-number order, the way gogo-generated marshalers do
// (empty strings of non-pointer fields included, map entries sorted by key).
import { Writer } from "../../store/proto/wire.ts";

const varint = 0;
const lengthDelimited = 2;

/** ProtoBuilder appends fields to one protobuf message. */
export class ProtoBuilder {
  private readonly w = new Writer(512);

  /** str writes a string field (also when empty: k8s's non-pointer strings are always present). */
  str(field: number, v: string): this {
    this.tag(field, lengthDelimited);
    this.w.string(v);
    return this;
  }

  /** optStr writes a string field only when it is set. */
  optStr(field: number, v: string | undefined): this {
    return v === undefined ? this : this.str(field, v);
  }

  /** strs writes a repeated string field. */
  strs(field: number, vs: readonly string[]): this {
    for (const v of vs) this.str(field, v);
    return this;
  }

  /** bytes writes a bytes field. */
  bytes(field: number, v: Uint8Array): this {
    this.tag(field, lengthDelimited);
    this.w.bytes(v);
    return this;
  }

  /** int writes an int32/int64 field. */
  int(field: number, v: number): this {
    this.tag(field, varint);
    this.w.int64Number(v);
    return this;
  }

  /** optInt writes an integer field only when it is set. */
  optInt(field: number, v: number | undefined): this {
    return v === undefined ? this : this.int(field, v);
  }

  /** bool writes a bool field. */
  bool(field: number, v: boolean): this {
    this.tag(field, varint);
    this.w.bool(v);
    return this;
  }

  /** msg writes an embedded message built by `build`. */
  msg(field: number, build: (b: ProtoBuilder) => void): this {
    this.tag(field, lengthDelimited);
    const start = this.w.fork();
    build(this);
    this.w.ldelim(start);
    return this;
  }

  /** msgs writes a repeated message field. */
  msgs<T>(field: number, items: readonly T[], build: (b: ProtoBuilder, item: T) => void): this {
    for (const it of items) this.msg(field, (b) => build(b, it));
    return this;
  }

  /** map writes a map<string, string> field, entries sorted by key. */
  map(field: number, m: Readonly<Record<string, string>> | undefined): this {
    for (const k of Object.keys(m ?? {}).sort())
      this.msg(field, (b) => b.str(1, k).str(2, (m as Record<string, string>)[k] ?? ""));
    return this;
  }

  /** bytesMap writes a map<string, bytes> field, entries sorted by key. */
  bytesMap(field: number, m: Readonly<Record<string, Uint8Array>>): this {
    for (const k of Object.keys(m).sort()) this.msg(field, (b) => b.str(1, k).bytes(2, m[k] as Uint8Array));
    return this;
  }

  /** finish returns the encoded message. */
  finish(): Uint8Array {
    return this.w.finish();
  }

  private tag(field: number, wireType: number): void {
    this.w.uint32((field << 3) | wireType);
  }
}

/** encode builds one message. */
export function encode(build: (b: ProtoBuilder) => void): Uint8Array {
  const b = new ProtoBuilder();
  build(b);
  return b.finish();
}
