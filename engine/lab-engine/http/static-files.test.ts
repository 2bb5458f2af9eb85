import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { acceptedEncodings, resolveStatic, serveStatic } from "./static-files.ts";

describe("static files", () => {
  const root = mkdtempSync(join(tmpdir(), "etcd-lab-site-"));
  mkdirSync(join(root, "lessons", "01-x"), { recursive: true });
  mkdirSync(join(root, "_astro"));
  writeFileSync(join(root, "index.html"), "home");
  writeFileSync(join(root, "lessons", "01-x", "index.html"), "lesson");
  writeFileSync(join(root, "about.html"), "about");
  writeFileSync(join(root, "_astro", "a.js"), "js");

  it("maps directories to index.html and extensionless paths to .html", () => {
    expect(resolveStatic(root, "/")).toBe(join(root, "index.html"));
    expect(resolveStatic(root, "/lessons/01-x/")).toBe(join(root, "lessons", "01-x", "index.html"));
    expect(resolveStatic(root, "/lessons/01-x")).toBe(join(root, "lessons", "01-x", "index.html"));
    expect(resolveStatic(root, "/about")).toBe(join(root, "about.html"));
    expect(resolveStatic(root, "/_astro/a.js")).toBe(join(root, "_astro", "a.js"));
    expect(resolveStatic(root, "/missing")).toBeNull();
  });

  it("never leaves the site directory", () => {
    expect(resolveStatic(root, "/../../etc/passwd")).toBeNull();
    expect(resolveStatic(root, "/%2e%2e/%2e%2e/etc/passwd")).toBeNull();
    expect(resolveStatic(root, "/a%00b")).toBeNull();
    expect(resolveStatic(root, "/%zz")).toBeNull();
  });
});

describe("Accept-Encoding", () => {
  it("prefers brotli, then gzip, by q-value; q=0 refuses; * stands for the rest", () => {
    expect(acceptedEncodings(undefined)).toEqual([]);
    expect(acceptedEncodings("")).toEqual([]);
    expect(acceptedEncodings("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
    expect(acceptedEncodings("gzip")).toEqual(["gzip"]);
    expect(acceptedEncodings("x-gzip")).toEqual(["gzip"]);
    expect(acceptedEncodings("br;q=0.5, gzip;q=0.8")).toEqual(["gzip", "br"]);
    expect(acceptedEncodings("br;q=0, gzip")).toEqual(["gzip"]);
    expect(acceptedEncodings("identity")).toEqual([]);
    expect(acceptedEncodings("*")).toEqual(["br", "gzip"]);
    expect(acceptedEncodings("*;q=0.1, br;q=0")).toEqual(["gzip"]);
    expect(acceptedEncodings("GZIP ; Q=1")).toEqual(["gzip"]);
    expect(acceptedEncodings(["gzip", "br"])).toEqual(["br", "gzip"]);
  });
});

describe("compressed static files over HTTP", () => {
  const root = mkdtempSync(join(tmpdir(), "etcd-lab-site-z-"));
  const js = Buffer.from("export const answer = 42;\n".repeat(200));
  const html = Buffer.from(`<!doctype html><title>x</title>${"<p>lesson text</p>".repeat(100)}`);
  const png = Buffer.alloc(2000, 7);
  let server: Server;
  let origin = "";

  beforeAll(async () => {
    mkdirSync(join(root, "_astro"));
    writeFileSync(join(root, "_astro", "app.js"), js);
    writeFileSync(join(root, "_astro", "app.js.br"), brotliCompressSync(js));
    writeFileSync(join(root, "_astro", "app.js.gz"), gzipSync(js));
    writeFileSync(join(root, "index.html"), html);
    writeFileSync(join(root, "index.html.gz"), gzipSync(html)); // no .br copy
    writeFileSync(join(root, "404.html"), html);
    writeFileSync(join(root, "404.html.br"), brotliCompressSync(html));
    writeFileSync(join(root, "stale.css"), "body{}".repeat(100));
    writeFileSync(join(root, "stale.css.gz"), gzipSync("old"));
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, "stale.css.gz"), past, past); // a copy from an earlier build
    writeFileSync(join(root, "image.png"), png);
    writeFileSync(join(root, "image.png.gz"), gzipSync(png)); // never used: not a text type
    server = createServer((req, res) => serveStatic(root, req, res, new URL(req.url ?? "/", "http://x").pathname));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  /** fetchRaw GETs (or HEADs) a path without decoding the body. */
  function fetchRaw(
    path: string,
    acceptEncoding?: string,
    method = "GET",
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const headers = acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding };
      const req = get(`${origin}${path}`, { headers, method }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on("error", reject);
    });
  }

  it("sends the brotli copy to a browser that accepts br, with its own length and Vary", async () => {
    const r = await fetchRaw("/_astro/app.js", "gzip, deflate, br, zstd");
    expect(r.status).toBe(200);
    expect(r.headers["content-encoding"]).toBe("br");
    expect(r.headers["vary"]).toBe("Accept-Encoding");
    expect(r.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(Number(r.headers["content-length"])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(js.length / 10);
    expect(brotliDecompressSync(r.body).equals(js)).toBe(true);
  });

  it("sends gzip when only gzip is accepted, and when the brotli copy is missing", async () => {
    const r = await fetchRaw("/_astro/app.js", "gzip");
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(Number(r.headers["content-length"])).toBe(r.body.length);
    expect(gunzipSync(r.body).equals(js)).toBe(true);
    const page = await fetchRaw("/", "br, gzip");
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(page.body).equals(html)).toBe(true);
  });

  it("falls back to the file itself: no Accept-Encoding, identity only, a refused coding, a stale copy", async () => {
    for (const accept of [undefined, "identity", "br;q=0, gzip;q=0", "deflate"]) {
      const r = await fetchRaw("/_astro/app.js", accept);
      expect([accept, r.headers["content-encoding"]]).toEqual([accept, undefined]);
      expect(r.headers["vary"]).toBe("Accept-Encoding");
      expect(Number(r.headers["content-length"])).toBe(js.length);
      expect(r.body.equals(js)).toBe(true);
    }
    const stale = await fetchRaw("/stale.css", "gzip");
    expect(stale.headers["content-encoding"]).toBeUndefined();
    expect(stale.body.toString()).toBe("body{}".repeat(100));
  });

  it("never compresses what is not text, and says no Vary for it", async () => {
    const r = await fetchRaw("/image.png", "gzip, br");
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.headers["vary"]).toBeUndefined();
    expect(r.body.equals(png)).toBe(true);
  });

  it("compresses the 404 page too, and HEAD carries the compressed length without a body", async () => {
    const missing = await fetchRaw("/nowhere", "br");
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(missing.body).equals(html)).toBe(true);
    const head = await fetchRaw("/_astro/app.js", "br", "HEAD");
    expect(head.headers["content-encoding"]).toBe("br");
    expect(Number(head.headers["content-length"])).toBe(brotliCompressSync(js).length);
    expect(head.body.length).toBe(0);
  });
});
