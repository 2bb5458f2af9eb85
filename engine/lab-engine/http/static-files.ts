// Serving the built site (site/dist): directory URLs map to index.html, /_astro/* is immutable, unknown
// paths get 404.html. Paths never leave the site directory.
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
  const headers: Record<string, string | number> = {
    "content-type": types[extname(path)] ?? "application/octet-stream",
    "content-length": statSync(path).size,
    "x-content-type-options": "nosniff",
    "cache-control": urlPath.startsWith("/_astro/") ? "public, max-age=31536000, immutable" : "no-cache",
  };
  res.writeHead(status, headers);
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  createReadStream(path).pipe(res);
}
