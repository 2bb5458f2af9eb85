// precompress writes a gzip (.gz) and a brotli (.br) copy next to every compressible file of a built site, so
// the lab server can send them as they are (engine/lab-engine/http/static-files.ts negotiates Accept-Encoding).
// Run by the site build (site/astro.config.mjs, hook astro:build:done); `node scripts/precompress.mjs <dir>`
// does it by hand. A copy that would not be smaller than its file is not written (and an older one removed).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** compressibleExtensions are the text formats worth compressing (images and fonts already are). */
export const compressibleExtensions = new Set([
  ".html",
  ".js",
  ".mjs",
  ".css",
  ".json",
  ".svg",
  ".txt",
  ".xml",
  ".map",
]);

/** minBytes is the smallest file worth a compressed copy (below it the headers outweigh the gain). */
export const minBytes = 256;

/** encoders are the encodings written, by file suffix. */
const encoders = {
  ".br": (/** @type {Buffer} */ b) =>
    brotliCompressSync(b, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  ".gz": (/** @type {Buffer} */ b) => gzipSync(b, { level: 9 }),
};

/** @param {string} dir @returns {string[]} every file under dir */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
  );
}

/**
 * precompress compresses every compressible file under dir.
 * @param {string} dir
 * @returns {{ files: number, bytes: number, gzipBytes: number, brotliBytes: number }} what it wrote
 */
export function precompress(dir) {
  const out = { files: 0, bytes: 0, gzipBytes: 0, brotliBytes: 0 };
  for (const path of walk(dir)) {
    if (!compressibleExtensions.has(extname(path))) continue;
    const raw = readFileSync(path);
    out.files++;
    out.bytes += raw.length;
    for (const [suffix, encode] of Object.entries(encoders)) {
      const packed = raw.length >= minBytes ? encode(raw) : null;
      if (packed && packed.length < raw.length) {
        writeFileSync(path + suffix, packed);
        if (suffix === ".gz") out.gzipBytes += packed.length;
        else out.brotliBytes += packed.length;
      } else {
        rmSync(path + suffix, { force: true });
        if (suffix === ".gz") out.gzipBytes += raw.length;
        else out.brotliBytes += raw.length;
      }
    }
  }
  return out;
}

/** @param {string} dir */
function report(dir) {
  const r = precompress(dir);
  return `precompressed ${r.files} files under ${dir}: ${r.bytes} bytes, gzip ${r.gzipBytes}, brotli ${r.brotliBytes}`;
}

/** astroPrecompress is the Astro integration that precompresses the built site. */
export function astroPrecompress() {
  return {
    name: "etcd-lab:precompress",
    hooks: {
      "astro:build:done": (/** @type {{ dir: URL, logger: { info(m: string): void } }} */ { dir, logger }) => {
        logger.info(report(fileURLToPath(dir)));
      },
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir || !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    console.error("usage: node scripts/precompress.mjs <built site directory>");
    process.exit(2);
  }
  console.log(report(dir));
}
