// The HPACK decoder against a real encoder: node:http2's client (nghttp2) sends requests over a raw TCP
// socket we read, and every header block must decode to the headers it sent — Huffman strings, the static
// table and the dynamic table across requests included. The :authority repair is then checked frame by frame.
import { connect } from "node:http2";
import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { FrameRewriter, clientPreface, isUrlAuthority, opensLikeGrpcGo, repairAuthority } from "./h2-authority.ts";
import { HpackDecoder, HpackError, encodeLiterals, huffmanDecode } from "./hpack.ts";

interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

function frames(data: Buffer): Frame[] {
  const out: Frame[] = [];
  let off = clientPreface.length;
  while (off + 9 <= data.length) {
    const len = data.readUIntBE(off, 3);
    if (off + 9 + len > data.length) break;
    out.push({
      type: data[off + 3] as number,
      flags: data[off + 4] as number,
      streamId: data.readUInt32BE(off + 5) & 0x7fffffff,
      payload: data.subarray(off + 9, off + 9 + len),
    });
    off += 9 + len;
  }
  return out;
}

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

/** capture sends the requests with node:http2 and returns the raw bytes the client wrote. */
async function capture(requests: Record<string, string>[]): Promise<Buffer> {
  let resolveBytes: (b: Buffer) => void = () => {};
  const bytes = new Promise<Buffer>((r) => (resolveBytes = r));
  const srv = createServer((sock) => {
    let got = Buffer.alloc(0);
    sock.on("data", (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (frames(got).filter((f) => f.type === 1).length >= requests.length) {
        resolveBytes(got);
        sock.destroy();
      }
    });
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  const client = connect(`http://127.0.0.1:${port}`);
  client.on("error", () => {});
  for (const h of requests) client.request(h).on("error", () => {});
  const data = await bytes;
  client.destroy();
  return data;
}

describe("HPACK decoding of node:http2's header blocks", () => {
  it("decodes Huffman strings, static and dynamic table references across requests", async () => {
    const requests = Array.from({ length: 6 }, (_, i) => ({
      ":path": `/etcdserverpb.KV/Range`,
      ":method": "POST",
      ":authority": "127.0.0.1:2379",
      "content-type": "application/grpc",
      "user-agent": "grpc-go/1.26.0",
      te: "trailers",
      "x-request": `n${i}-${"z".repeat(i * 7)}~!|{}^`,
    }));
    const data = await capture(requests);
    const decoder = new HpackDecoder();
    const blocks = frames(data).filter((f) => f.type === 1);
    expect(blocks).toHaveLength(requests.length);
    blocks.forEach((f, i) => {
      const got = Object.fromEntries(decoder.decode(f.payload).map((h) => [h.name, h.value]));
      expect(got).toMatchObject(requests[i] as Record<string, string>);
    });
  });

  it("rejects malformed input", () => {
    expect(() => new HpackDecoder().decode(Uint8Array.from([0xff]))).toThrow(HpackError); // truncated integer
    expect(() => new HpackDecoder().decode(Uint8Array.from([0x80]))).toThrow(HpackError); // index 0
    expect(() => new HpackDecoder().decode(Uint8Array.from([0xbe]))).toThrow(HpackError); // empty dynamic table
    expect(() => huffmanDecode(Uint8Array.from([0x00]))).toThrow(HpackError); // padding that is not EOS's 1s
  });

  it("encodes literals that decode back", () => {
    const fields = [
      { name: ":authority", value: "127.0.0.1:2379" },
      { name: "x-long", value: "v".repeat(300) },
    ];
    expect(new HpackDecoder().decode(encodeLiterals(fields))).toEqual(fields);
  });
});

describe(":authority repair", () => {
  it("knows URL authorities", () => {
    expect(isUrlAuthority("http://127.0.0.1:2379")).toBe(true);
    expect(isUrlAuthority("127.0.0.1:2379")).toBe(false);
    expect(repairAuthority("https://127.0.0.1:2379")).toBe("127.0.0.1:2379");
  });

  it("spots a grpc-go opening (an empty SETTINGS frame after the preface)", () => {
    const empty = Buffer.concat([clientPreface, Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);
    expect(opensLikeGrpcGo(empty)).toBe(true);
    expect(opensLikeGrpcGo(empty.subarray(0, 30))).toBeUndefined();
    const withParams = Buffer.concat([clientPreface, Buffer.from([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0])]);
    expect(opensLikeGrpcGo(withParams)).toBe(false);
  });

  it("rewrites every header block of a URL-authority connection, and passes others through", async () => {
    const req = (authority: string, i: number): Record<string, string> => ({
      ":path": "/etcdserverpb.Maintenance/Status",
      ":method": "POST",
      ":authority": authority,
      "x-n": String(i),
    });
    const url = await capture([0, 1, 2].map((i) => req("http://127.0.0.1:2379", i)));
    const rw = new FrameRewriter();
    const out = Buffer.concat([rw.push(url.subarray(0, 40)), rw.push(url.subarray(40))]);
    expect(rw.repairing).toBe(true);
    const decoder = new HpackDecoder();
    const blocks = frames(out).filter((f) => f.type === 1);
    expect(blocks.map((f) => decoder.decode(f.payload).find((h) => h.name === ":authority")?.value)).toEqual([
      "127.0.0.1:2379",
      "127.0.0.1:2379",
      "127.0.0.1:2379",
    ]);
    expect(blocks.map((f) => decoder.decode(f.payload).find((h) => h.name === "x-n")?.value)).toEqual(["0", "1", "2"]);

    const plain = await capture([0, 1].map((i) => req("127.0.0.1:2379", i)));
    const pass = new FrameRewriter();
    expect(pass.push(plain).equals(plain)).toBe(true);
    expect(pass.repairing).toBe(false);
  });
});
