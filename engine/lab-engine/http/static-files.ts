// Serving the built site (site/dist): directory URLs map to index.html, /_astro/* is immutable, unknown
// paths get 404.html. Paths never leave the site directory. Text files are sent compressed when the client
// accepts it: the build leaves a brotli (<file>.br) and a gzip (<file>.gz) copy beside each one
// (scripts/precompress.mjs), chosen here by Accept-Encoding; without a usable copy the file goes as it is.
import { createReadStream, existsSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml",
  ".map": "application/json",
};

/** compressibleTypes are the extensions the build precompresses (scripts/precompress.mjs). */
const compressibleTypes = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".xml", ".map"]);

/** Encoding is a content coding the server has copies for, in order of preference. */
export type Encoding = "br" | "gzip";
const encodings: readonly { name: Encoding; suffix: string }[] = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
];

/**
 * acceptedEncodings reads an Accept-Encoding header (RFC 9110 §12.5.3) and returns the codings we have that it
 * accepts, best first: by q-value, ties in our order (brotli before gzip). `*` stands for any coding not named;
 * q=0 refuses one. No header means no compression.
 */
export function acceptedEncodings(header: string | string[] | undefined): Encoding[] {
  const text = Array.isArray(header) ? header.join(",") : (header ?? "");
  const q = new Map<string, number>();
  for (const part of text.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Math.min(1, Number(m[1]) || 0);
    }
    const coding = name.trim();
    q.set(coding === "x-gzip" ? "gzip" : coding, weight);
  }
  const star = q.get("*");
  return encodings
    .map((e, order) => ({ name: e.name, order, weight: q.get(e.name) ?? star ?? 0 }))
    .filter((e) => e.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order)
    .map((e) => e.name);
}

/** Variant is the file to send for a request: the original or one of its precompressed copies. */
export interface Variant {
  path: string;
  size: number;
  encoding: Encoding | null;
  /** vary says whether the answer depends on Accept-Encoding (the file is of a compressible type). */
  vary: boolean;
}

/**
 * chooseVariant picks what to send for `path`: the best accepted precompressed copy that exists and is not
 * older than the file (a stale copy from an earlier build is ignored), else the file itself.
 */
export function chooseVariant(path: string, acceptEncoding: string | string[] | undefined): Variant {
  const st = statSync(path);
  const vary = compressibleTypes.has(extname(path));
  if (vary) {
    for (const name of acceptedEncodings(acceptEncoding)) {
      const copy = path + (encodings.find((e) => e.name === name)?.suffix ?? "");
      try {
        const c = statSync(copy);
        if (c.isFile() && c.mtimeMs >= st.mtimeMs) return { path: copy, size: c.size, encoding: name, vary };
      } catch {
        // No copy in this coding: try the next one.
      }
    }
  }
  return { path, size: st.size, encoding: null, vary };
}

function file(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** resolveStatic maps a URL path to a file under `root` (null: not found). */
export function resolveStatic(root: string, urlPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (p.includes("\0")) return null;
  const full = normalize(join(root, p));
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  if (p.endsWith("/")) return file(join(full, "index.html")) ? join(full, "index.html") : null;
  if (file(full)) return full;
  if (file(`${full}.html`)) return `${full}.html`;
  if (file(join(full, "index.html"))) return join(full, "index.html");
  return null;
}

/** serveStatic answers a GET/HEAD for the site. */
export function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, urlPath: string): void {
  if (!existsSync(root)) {
    res.writeHead(urlPath === "/" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>etcd-lab</title><h1>etcd-lab</h1>` +
        `<p>The lab server is running, but the course site is not built yet (${root} is missing).</p>` +
        `<p><code>npm start</code> builds it in the background (about a minute); reload this page then. ` +
        `Otherwise run <code>npm run build:site</code>.</p>`,
    );
    return;
  }
  let path = resolveStatic(root, urlPath);
  let status = 200;
  if (!path) {
    status = 404;
    path = file(join(root, "404.html")) ? join(root, "404.html") : null;
    if (!path) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      res.end("not found\n");
      return;
    }
  }
  const variant = chooseVariant(path, req.headers["accept-encoding"]);
  const headers: Record<string, string | number> = {
    "content-type": types[extname(path)] ?? "application/octet-stream",
    "content-length": variant.size,
    "x-content-type-options": "nosniff",
    "cache-control": urlPath.startsWith("/_astro/") ? "public, max-age=31536000, immutable" : "no-cache",
  };
  if (variant.encoding) headers["content-encoding"] = variant.encoding;
  if (variant.vary) headers["vary"] = "Accept-Encoding";
  res.writeHead(status, headers);
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  createReadStream(variant.path).pipe(res);
}
