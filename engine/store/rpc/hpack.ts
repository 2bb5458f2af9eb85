// HPACK (RFC 7541): a decoder — integers, string literals (raw or Huffman-coded), the static table and a
// dynamic table with eviction — and an encoder that only writes literals without indexing. It serves the
// client port's :authority repair (h2-authority.ts), which decodes what a client sends and re-encodes it
// for node:http2 without touching that side's dynamic table.
import { assert } from "../../common/assert.ts";

/** HeaderField is one decoded header. */
export interface HeaderField {
  name: string;
  value: string;
}

/** HpackError is a malformed header block (the connection is then closed). */
export class HpackError extends Error {
  override name = "HpackError";
}

/** staticTable is RFC 7541 Appendix A (index 1..61). */
const staticTable: readonly HeaderField[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
].map(([name, value]) => ({ name: name as string, value: value as string }));

/**
 * huffmanLengths are the code lengths of RFC 7541 Appendix B for symbols 0..255 and EOS (256). The code is
 * canonical: codes are assigned in order of length, then symbol, so the lengths determine every code.
 */
// prettier-ignore
const huffmanLengths: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28,
  28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6,
  12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5,
  6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22,
  22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22,
  21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23,
  22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21,
  21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27,
  27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

const EOS = 256;

/** HuffNode is a node of the decoding tree: leaves carry a symbol. */
interface HuffNode {
  zero?: HuffNode;
  one?: HuffNode;
  symbol?: number;
}

/** huffmanTree builds the decoding tree from the canonical code lengths (once). */
const huffmanTree: HuffNode = (() => {
  const order = [...huffmanLengths.keys()].sort(
    (a, b) => (huffmanLengths[a] as number) - (huffmanLengths[b] as number) || a - b,
  );
  const root: HuffNode = {};
  let code = 0;
  let prevLen = 0;
  order.forEach((symbol, i) => {
    const len = huffmanLengths[symbol] as number;
    if (i > 0) code = (code + 1) * 2 ** (len - prevLen);
    prevLen = len;
    let node = root;
    for (let bit = len - 1; bit >= 0; bit--) {
      const one = Math.floor(code / 2 ** bit) % 2 === 1;
      const next = (one ? node.one : node.zero) ?? {};
      if (one) node.one = next;
      else node.zero = next;
      node = next;
    }
    node.symbol = symbol;
  });
  return root;
})();

/** huffmanDecode decodes a Huffman-coded string (RFC 7541 §5.2: padding is at most 7 bits of EOS's 1s). */
export function huffmanDecode(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let node = huffmanTree;
  let depth = 0;
  let allOnes = true;
  for (const byte of data) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = ((byte >> bit) & 1) === 1;
      const next = one ? node.one : node.zero;
      if (!next) throw new HpackError("invalid Huffman code");
      node = next;
      depth++;
      allOnes &&= one;
      if (node.symbol !== undefined) {
        if (node.symbol === EOS) throw new HpackError("EOS in a Huffman-coded string");
        out.push(node.symbol);
        node = huffmanTree;
        depth = 0;
        allOnes = true;
      }
    }
  }
  if (depth > 7 || !allOnes) throw new HpackError("invalid Huffman padding");
  return Uint8Array.from(out);
}

/** HpackDecoder decodes header blocks of one connection (its dynamic table lives across blocks). */
export class HpackDecoder {
  private table: HeaderField[] = [];
  private tableBytes = 0;
  private maxTableBytes: number;

  /** protocolMaxBytes is the table size the decoder's side advertised (SETTINGS_HEADER_TABLE_SIZE). */
  constructor(private readonly protocolMaxBytes = 4096) {
    this.maxTableBytes = protocolMaxBytes;
  }

  /** decode decodes one complete header block. */
  decode(block: Uint8Array): HeaderField[] {
    const r = { buf: block, pos: 0 };
    const out: HeaderField[] = [];
    while (r.pos < block.length) {
      const b = block[r.pos] as number;
      if (b & 0x80) {
        out.push(this.lookup(readInt(r, 7)));
      } else if ((b & 0xc0) === 0x40) {
        const f = this.readLiteral(r, 6);
        this.insert(f);
        out.push(f);
      } else if ((b & 0xe0) === 0x20) {
        const size = readInt(r, 5);
        if (size > this.protocolMaxBytes) throw new HpackError(`table size ${size} over ${this.protocolMaxBytes}`);
        this.maxTableBytes = size;
        this.evict(0);
      } else {
        out.push(this.readLiteral(r, 4));
      }
    }
    return out;
  }

  private readLiteral(r: Reader, prefix: number): HeaderField {
    const index = readInt(r, prefix);
    const name = index === 0 ? readString(r) : this.lookup(index).name;
    return { name, value: readString(r) };
  }

  private lookup(index: number): HeaderField {
    if (index === 0) throw new HpackError("index 0");
    if (index <= staticTable.length) return staticTable[index - 1] as HeaderField;
    const f = this.table[index - staticTable.length - 1];
    if (!f) throw new HpackError(`index ${index} out of range`);
    return f;
  }

  private insert(f: HeaderField): void {
    const size = entrySize(f);
    this.evict(size);
    if (size > this.maxTableBytes) return; // an entry larger than the table empties it and is not added
    this.table.unshift(f);
    this.tableBytes += size;
  }

  private evict(room: number): void {
    while (this.table.length > 0 && this.tableBytes + room > this.maxTableBytes) {
      this.tableBytes -= entrySize(this.table.pop() as HeaderField);
    }
    if (this.table.length === 0) this.tableBytes = 0;
    assert(this.tableBytes >= 0, "hpack: table size below zero");
  }
}

/** encodeLiterals encodes fields as "literal without indexing, new name" with raw strings (no table use). */
export function encodeLiterals(fields: readonly HeaderField[]): Uint8Array {
  const out: number[] = [];
  const str = (s: string): void => {
    const bytes = Buffer.from(s, "latin1");
    writeInt(out, bytes.length, 7, 0x00);
    for (const b of bytes) out.push(b);
  };
  for (const f of fields) {
    out.push(0x00);
    str(f.name);
    str(f.value);
  }
  return Uint8Array.from(out);
}

interface Reader {
  buf: Uint8Array;
  pos: number;
}

/** readInt reads an HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function readInt(r: Reader, prefix: number): number {
  const mask = (1 << prefix) - 1;
  if (r.pos >= r.buf.length) throw new HpackError("truncated integer");
  let v = (r.buf[r.pos++] as number) & mask;
  if (v < mask) return v;
  let shift = 0;
  for (;;) {
    if (r.pos >= r.buf.length) throw new HpackError("truncated integer");
    const b = r.buf[r.pos++] as number;
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (v > 2 ** 32) throw new HpackError("integer too large");
    if ((b & 0x80) === 0) return v;
  }
}

function writeInt(out: number[], v: number, prefix: number, flags: number): void {
  const mask = (1 << prefix) - 1;
  if (v < mask) {
    out.push(flags | v);
    return;
  }
  out.push(flags | mask);
  v -= mask;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** readString reads a string literal (Huffman-coded when its H bit is set); bytes map to latin1 chars. */
function readString(r: Reader): string {
  if (r.pos >= r.buf.length) throw new HpackError("truncated string");
  const huffman = ((r.buf[r.pos] as number) & 0x80) !== 0;
  const len = readInt(r, 7);
  if (r.pos + len > r.buf.length) throw new HpackError("truncated string");
  const raw = r.buf.subarray(r.pos, r.pos + len);
  r.pos += len;
  return Buffer.from(huffman ? huffmanDecode(raw) : raw).toString("latin1");
}

/** entrySize is a table entry's size: name and value octets plus 32 (RFC 7541 §4.1). */
function entrySize(f: HeaderField): number {
  return Buffer.byteLength(f.name, "latin1") + Buffer.byteLength(f.value, "latin1") + 32;
}
