// wire: the protobuf binary wire format on Uint8Array — varints, zigzag, fixed-width, length-delimited —
// shared by every generated codec in gen/. Pure: no node:* imports (the pure cores encode through it).
// Encoding is canonical like Go's: fields in number order (the generated code's job), minimal varints.

// The pure tsconfig has no DOM or Node types; these two globals exist in every JS runtime we target.
declare const TextEncoder: new () => {
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
};
declare const TextDecoder: new (label?: string) => { decode(input: Uint8Array): string };

/** WireType is the low 3 bits of a field tag: how the field's value is laid out. */
export enum WireType {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

/** ProtoDecodeError says the bytes are not a valid encoding of the message being decoded. */
export class ProtoDecodeError extends Error {
  override name = "ProtoDecodeError";
}

/** EMPTY_BYTES is the shared default for bytes fields; it has length 0, so sharing it is safe. */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

const TWO_32 = 4294967296;
/** sharedBufferBytesMax caps the memory the shared encode buffer keeps between encodes. */
const sharedBufferBytesMax = 1 << 20;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");
const scratch = new DataView(new ArrayBuffer(8));

/**
 * Writer appends protobuf values to a growable buffer. Length-delimited values are written in place with
 * fork()/ldelim(): fork reserves one length byte, ldelim patches it (moving the payload when the length needs
 * more than one byte), so a nested message is encoded in one pass.
 */
export class Writer {
  /** buf is the output so far, valid in [0, pos). */
  buf: Uint8Array;
  /** pos is the next byte to write. */
  pos = 0;

  constructor(initialBytes = 256) {
    this.buf = new Uint8Array(initialBytes);
  }

  /** ensure makes room for n more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** uint32 writes v (0 <= v < 2^32) as a varint. */
  uint32(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (v > 127) {
      buf[pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** int32 writes v as a varint; negative values take 10 bytes (sign-extended to 64 bits, as protobuf says). */
  int32(v: number): void {
    if (v >= 0) this.uint32(v);
    else this.varint64(v >>> 0, 0xffffffff);
  }

  /** sint32 writes v zigzag-encoded. */
  sint32(v: number): void {
    this.uint32(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** varint64 writes the 64-bit value hi:lo (both unsigned 32-bit halves) as a varint. */
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  /** int64Number writes an integer number (|v| <= 2^53) as a 64-bit two's complement varint. */
  int64Number(v: number): void {
    if (v >= 0 && v < TWO_32) {
      this.uint32(v);
      return;
    }
    const hi = Math.floor(v / TWO_32);
    this.varint64(v - hi * TWO_32, hi >>> 0);
  }

  /** int64Bigint writes v as a 64-bit two's complement varint (uint64 values are written the same way). */
  int64Bigint(v: bigint): void {
    if (v >= 0n && v < 0x80000000n) {
      this.uint32(Number(v));
      return;
    }
    this.varint64(Number(BigInt.asUintN(32, v)), Number(BigInt.asUintN(32, v >> 32n)));
  }

  /** sint64Number writes v zigzag-encoded (|v| <= 2^53). */
  sint64Number(v: number): void {
    this.sint64Bigint(BigInt(v));
  }

  /** sint64Bigint writes v zigzag-encoded. */
  sint64Bigint(v: bigint): void {
    this.int64Bigint(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
  }

  /** fixed32 writes v as 4 little-endian bytes (sfixed32 too: the low 32 bits are the same). */
  fixed32(v: number): void {
    this.ensure(4);
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = v & 255;
    buf[pos + 1] = (v >>> 8) & 255;
    buf[pos + 2] = (v >>> 16) & 255;
    buf[pos + 3] = (v >>> 24) & 255;
    this.pos = pos + 4;
  }

  /** fixed64Number writes v (|v| <= 2^53) as 8 little-endian bytes, two's complement. */
  fixed64Number(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.fixed32((v - hi * TWO_32) >>> 0);
    this.fixed32(hi >>> 0);
  }

  /** fixed64Bigint writes v as 8 little-endian bytes, two's complement. */
  fixed64Bigint(v: bigint): void {
    this.fixed32(Number(BigInt.asUintN(32, v)));
    this.fixed32(Number(BigInt.asUintN(32, v >> 32n)));
  }

  /** float writes v as an IEEE 754 single. */
  float(v: number): void {
    scratch.setFloat32(0, v, true);
    this.fixed32(scratch.getUint32(0, true));
  }

  /** double writes v as an IEEE 754 double. */
  double(v: number): void {
    scratch.setFloat64(0, v, true);
    this.fixed32(scratch.getUint32(0, true));
    this.fixed32(scratch.getUint32(4, true));
  }

  /** bool writes v as a one-byte varint. */
  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  /** bytes writes v length-prefixed. */
  bytes(v: Uint8Array): void {
    const n = v.length;
    this.uint32(n);
    this.ensure(n);
    if (n < 64) {
      // A loop beats TypedArray.set's call overhead for short values (keys, small values).
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = v[i]!;
      this.pos = pos;
    } else {
      this.buf.set(v, this.pos);
      this.pos += n;
    }
  }

  /** string writes v as length-prefixed UTF-8. */
  string(v: string): void {
    const n = v.length;
    const start = this.fork();
    this.ensure(n * 3);
    const buf = this.buf;
    let pos = this.pos;
    let i = 0;
    // ASCII fast path; the first other character hands the rest to TextEncoder.
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c > 127) break;
      buf[pos++] = c;
    }
    if (i < n) pos += encoder.encodeInto(i === 0 ? v : v.slice(i), buf.subarray(pos)).written;
    this.pos = pos;
    this.ldelim(start);
  }

  /** fork reserves a one-byte length prefix for a length-delimited value and returns where the value starts. */
  fork(): number {
    this.ensure(1);
    this.pos++;
    return this.pos;
  }

  /** ldelim ends the value started by fork(start): it writes its length, moving the value if needed. */
  ldelim(start: number): void {
    const length = this.pos - start;
    if (length < 128) {
      this.buf[start - 1] = length;
      return;
    }
    let lengthBytes = 1;
    for (let v = length; v > 127; v >>>= 7) lengthBytes++;
    this.ensure(lengthBytes - 1);
    const buf = this.buf;
    buf.copyWithin(start + lengthBytes - 1, start, this.pos);
    let pos = start - 1;
    let v = length;
    while (v > 127) {
      buf[pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[pos] = v;
    this.pos += lengthBytes - 1;
  }

  /** finish returns a copy of the bytes written and resets the writer for reuse. */
  finish(): Uint8Array {
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    if (this.buf.length > sharedBufferBytesMax) this.buf = new Uint8Array(256);
    return out;
  }
}

let shared: Writer | undefined;

/**
 * encodeMessage runs a generated write function on a shared, reused buffer and returns a right-sized copy.
 * Encoding is synchronous, so one shared writer serves every call. reserveBytes leaves that many zero bytes
 * in front of the message for the caller to fill (gRPC's 5-byte frame header), saving a copy.
 */
export function encodeMessage<T>(write: (m: T, w: Writer) => void, m: T, reserveBytes = 0): Uint8Array {
  const w = (shared ??= new Writer(4096));
  w.ensure(reserveBytes);
  w.buf.fill(0, 0, reserveBytes);
  w.pos = reserveBytes;
  write(m, w);
  return w.finish();
}

/**
 * decodeMessage runs a generated read function over all of bytes. The input is copied once into memory the
 * message owns, and bytes fields are views into that copy: decoded messages never alias the caller's buffer
 * (which may be reused — a read buffer, an LMDB value), and a message with many bytes fields costs one
 * allocation, not one per field. NB: a bytes field kept alone keeps its whole message's copy alive.
 */
export function decodeMessage<T>(read: (r: Reader, end: number) => T, bytes: Uint8Array): T {
  const r = new Reader(bytes.length === 0 ? bytes : Uint8Array.prototype.slice.call(bytes), true);
  return read(r, bytes.length);
}

/**
 * Reader reads protobuf values from a Uint8Array. Bytes fields never alias the caller's buffer: they are views
 * into a private copy (decodeMessage) or copies. Every read checks bounds and throws ProtoDecodeError on
 * truncated or malformed input.
 */
export class Reader {
  /** buf is the input. */
  readonly buf: Uint8Array;
  /** pos is the next byte to read. */
  pos = 0;
  private hi = 0;
  private lo = 0;

  /**
   * owned says buf is private to the messages decoded from it (decodeMessage's copy), so bytes() may return
   * views into it; otherwise bytes() copies.
   */
  private readonly owned: boolean;

  constructor(buf: Uint8Array, owned = false) {
    // A Uint8Array subclass (Node's) may alias on slice(); a plain Uint8Array view over the same memory copies.
    this.buf = buf.constructor === Uint8Array ? buf : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    this.owned = owned;
  }

  private truncated(): never {
    throw new ProtoDecodeError(`truncated input at byte ${this.pos} of ${this.buf.length}`);
  }

  /** uint32 reads a varint and returns its low 32 bits, unsigned. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos + 10 > buf.length) return this.uint32Slow();
    let b = buf[pos++]!;
    let v = b & 127;
    if (b < 128) {
      this.pos = pos;
      return v;
    }
    b = buf[pos++]!;
    v |= (b & 127) << 7;
    if (b < 128) {
      this.pos = pos;
      return v;
    }
    b = buf[pos++]!;
    v |= (b & 127) << 14;
    if (b < 128) {
      this.pos = pos;
      return v;
    }
    b = buf[pos++]!;
    v |= (b & 127) << 21;
    if (b < 128) {
      this.pos = pos;
      return v;
    }
    b = buf[pos++]!;
    v |= (b & 15) << 28;
    // Bytes 6..10 only carry bits above 32 (sign extension of negative int32s): skip them.
    for (let i = 0; b >= 128 && i < 5; i++) b = buf[pos++]!;
    if (b >= 128) throw new ProtoDecodeError(`varint longer than 10 bytes at byte ${this.pos}`);
    this.pos = pos;
    return v >>> 0;
  }

  private uint32Slow(): number {
    this.varint64();
    return this.lo;
  }

  /** varint64 reads a varint into the lo/hi halves. */
  private varint64(): void {
    const buf = this.buf;
    const len = buf.length;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= len) this.truncated();
      b = buf[pos++]!;
      lo |= (b & 127) << shift;
      if (b < 128) {
        this.pos = pos;
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    if (pos >= len) this.truncated();
    b = buf[pos++]!;
    lo |= (b & 127) << 28;
    hi = (b & 127) >> 4;
    if (b >= 128) {
      for (let shift = 3; shift < 32; shift += 7) {
        if (pos >= len) this.truncated();
        b = buf[pos++]!;
        hi |= (b & 127) << shift;
        if (b < 128) break;
      }
      if (b >= 128) throw new ProtoDecodeError(`varint longer than 10 bytes at byte ${this.pos}`);
    }
    this.pos = pos;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** int32 reads a varint as a signed 32-bit integer. */
  int32(): number {
    return this.uint32() | 0;
  }

  /** sint32 reads a zigzag varint. */
  sint32(): number {
    const v = this.uint32();
    return (v >>> 1) ^ -(v & 1);
  }

  /** uint64Number reads a varint as an unsigned number (exact up to 2^53). */
  uint64Number(): number {
    this.varint64();
    return this.hi * TWO_32 + this.lo;
  }

  /** int64Number reads a varint as a signed 64-bit number (exact within ±2^53). */
  int64Number(): number {
    this.varint64();
    return (this.hi | 0) * TWO_32 + this.lo;
  }

  /** uint64Bigint reads a varint as an unsigned 64-bit bigint. */
  uint64Bigint(): bigint {
    this.varint64();
    return this.hi === 0 ? BigInt(this.lo) : (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** int64Bigint reads a varint as a signed 64-bit bigint. */
  int64Bigint(): bigint {
    this.varint64();
    if (this.hi === 0) return BigInt(this.lo);
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo));
  }

  /** sint64Bigint reads a zigzag varint as a bigint. */
  sint64Bigint(): bigint {
    const v = this.uint64Bigint();
    return (v >> 1n) ^ -(v & 1n);
  }

  /** sint64Number reads a zigzag varint as a number (exact within ±2^53). */
  sint64Number(): number {
    return Number(this.sint64Bigint());
  }

  /** fixed32 reads 4 little-endian bytes, unsigned. */
  fixed32(): number {
    const pos = this.pos;
    if (pos + 4 > this.buf.length) this.truncated();
    const b = this.buf;
    this.pos = pos + 4;
    return (b[pos]! | (b[pos + 1]! << 8) | (b[pos + 2]! << 16) | (b[pos + 3]! << 24)) >>> 0;
  }

  /** sfixed32 reads 4 little-endian bytes, signed. */
  sfixed32(): number {
    return this.fixed32() | 0;
  }

  /** fixed64Number reads 8 little-endian bytes as an unsigned number. */
  fixed64Number(): number {
    const lo = this.fixed32();
    return this.fixed32() * TWO_32 + lo;
  }

  /** sfixed64Number reads 8 little-endian bytes as a signed number. */
  sfixed64Number(): number {
    const lo = this.fixed32();
    return (this.fixed32() | 0) * TWO_32 + lo;
  }

  /** fixed64Bigint reads 8 little-endian bytes as an unsigned bigint. */
  fixed64Bigint(): bigint {
    const lo = this.fixed32();
    return (BigInt(this.fixed32()) << 32n) | BigInt(lo);
  }

  /** sfixed64Bigint reads 8 little-endian bytes as a signed bigint. */
  sfixed64Bigint(): bigint {
    return BigInt.asIntN(64, this.fixed64Bigint());
  }

  /** float reads an IEEE 754 single. */
  float(): number {
    scratch.setUint32(0, this.fixed32(), true);
    return scratch.getFloat32(0, true);
  }

  /** double reads an IEEE 754 double. */
  double(): number {
    scratch.setUint32(0, this.fixed32(), true);
    scratch.setUint32(4, this.fixed32(), true);
    return scratch.getFloat64(0, true);
  }

  /** bool reads a varint as a boolean. */
  bool(): boolean {
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  /** delimitedEnd reads a length prefix and returns where the value ends. */
  delimitedEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.buf.length) this.truncated();
    return end;
  }

  /** bytes reads a length-prefixed value and returns a copy of it. */
  bytes(): Uint8Array {
    const end = this.delimitedEnd();
    if (end === this.pos) return EMPTY_BYTES;
    const out = this.owned ? this.buf.subarray(this.pos, end) : this.buf.slice(this.pos, end);
    this.pos = end;
    return out;
  }

  /** string reads a length-prefixed UTF-8 value (invalid sequences become U+FFFD, as Go leaves them unchecked). */
  string(): string {
    const end = this.delimitedEnd();
    const buf = this.buf;
    let pos = this.pos;
    this.pos = end;
    if (end - pos <= 32) {
      let s = "";
      for (; pos < end; pos++) {
        const c = buf[pos]!;
        if (c > 127) break;
        s += String.fromCharCode(c);
      }
      if (pos === end) return s;
      return s + decoder.decode(buf.subarray(pos, end));
    }
    return decoder.decode(buf.subarray(pos, end));
  }

  /** skip skips one value of the given wire type (an unknown field). */
  skip(wireType: number, fieldNo = 0): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint64();
        return;
      case WireType.Fixed64:
        if (this.pos + 8 > this.buf.length) this.truncated();
        this.pos += 8;
        return;
      case WireType.LengthDelimited:
        this.pos = this.delimitedEnd();
        return;
      case WireType.StartGroup:
        for (;;) {
          if (this.pos >= this.buf.length) this.truncated();
          const tag = this.uint32();
          if ((tag & 7) === WireType.EndGroup) {
            if (tag >>> 3 !== fieldNo) throw new ProtoDecodeError(`unmatched end of group at byte ${this.pos}`);
            return;
          }
          this.skip(tag & 7, tag >>> 3);
        }
      case WireType.Fixed32:
        if (this.pos + 4 > this.buf.length) this.truncated();
        this.pos += 4;
        return;
      default:
        throw new ProtoDecodeError(`invalid wire type ${wireType} at byte ${this.pos}`);
    }
  }

  /** tag reads a field tag; tag 0 is invalid. */
  tag(): number {
    const tag = this.uint32();
    if (tag >>> 3 === 0) throw new ProtoDecodeError(`invalid field number 0 at byte ${this.pos}`);
    return tag;
  }

  /** checkEnd asserts a nested message ended exactly where its length said. */
  checkEnd(end: number): void {
    if (this.pos !== end) throw new ProtoDecodeError(`message overran its length (at byte ${this.pos}, end ${end})`);
  }
}
