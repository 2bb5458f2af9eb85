"use strict";
// code-cache: runs a CommonJS bundle (dist/<name>.bundle.cjs) through vm.Script with V8's code cache, so that
// a start-up skips parsing and compiling what the last run of the same command already compiled. Node 20 has
// no module.enableCompileCache (Node 22), and its ES module loader takes no cached data, hence a CommonJS
// bundle and this loader. scripts/build.mjs copies this file to dist/code-cache.cjs; the generated
// dist/<name>.cjs and dist/<name>.mjs stubs call runBundle.
//
// The cache is a file under dist/.code-cache/ named by what it is valid for: the bundle's name, its content
// (crc32 and length of the bytes actually read, so a rebuild between two reads cannot pair one bundle with
// another's cache), a profile (etcdctl's command: `get` compiles other functions than `version`), and the
// V8 that made it (Node version, arch, execArgv, NODE_OPTIONS). V8 rejects data made by another V8 or for
// another source length, but it does not checksum the payload (--verify-snapshot-checksum is off), so the
// file carries a crc32 of its own: a torn or corrupt file is ignored, never handed to V8. A missing, stale,
// corrupt or rejected cache is made afresh when the process exits (or `writeAfterMs` after start for a
// long-running member), written to a temporary file and renamed into place; every failure to read or write
// it falls back silently to a plain compile. An ASCII bundle is decoded as latin1 (quicker than UTF-8,
// the same string). ETCD_LAB_CODE_CACHE=0 turns the cache off; =debug reports hits, writes and a start-up
// timeline on stderr.

/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module on purpose: it runs before, and
   instead of, Node's ES module loader. */
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const zlib = require("node:zlib");
const { createRequire } = require("node:module");
const { isAscii } = require("node:buffer");

/** cacheFilesMax bounds the cache directory: no new file is written once it holds this many. */
const cacheFilesMax = 64;

/** profileOf picks the profile for etcdctl-like tools: the first argument that looks like a command name. */
function profileOf(args) {
  for (const a of args) if (/^[a-z][a-z-]{0,23}$/.test(a)) return a;
  return "none";
}

function hex32(n) {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/** readCache returns the V8 data in `file` ("none" when absent, "corrupt" when its crc32 header disagrees). */
function readCache(file) {
  let buf;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return "none";
  }
  const data = buf.subarray(8);
  if (buf.length < 8 || buf.readUInt32LE(0) !== data.length || buf.readUInt32LE(4) !== zlib.crc32(data)) {
    return "corrupt";
  }
  return data;
}

/**
 * writeCache writes `data` behind its header to `file` by rename, and removes this bundle's stale caches. It
 * never throws (it runs in an exit handler): any failure is `false`.
 */
function writeCache(dir, file, prefix, keep, data) {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const names = fs.readdirSync(dir);
    for (const n of names) {
      // Another content of the same bundle: a cache nothing will read again.
      if (n.startsWith(prefix) && !n.startsWith(keep)) fs.rmSync(path.join(dir, n), { force: true });
    }
    if (names.length >= cacheFilesMax) return false;
    const header = Buffer.alloc(8);
    header.writeUInt32LE(data.length, 0);
    header.writeUInt32LE(zlib.crc32(data), 4);
    fs.writeFileSync(tmp, Buffer.concat([header, data]));
    fs.renameSync(tmp, file);
    return true;
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing more to undo
    }
    return false;
  }
}

/**
 * runBundle runs `<dir>/<name>.bundle.cjs` as a CommonJS module through the code cache. `profile` is "command"
 * (one cache per first command-like argument) or "single"; `writeAfterMs` > 0 writes a missing cache that
 * long after start (a member rarely exits cleanly), otherwise it is written when the process exits.
 */
function runBundle({ dir, name, profile = "single", writeAfterMs = 0 }) {
  const loaderMs = performance.now();
  const file = path.join(dir, `${name}.bundle.cjs`);
  const bytes = fs.readFileSync(file);
  // An empty file would run as nothing and exit 0 without a word (build.mjs never leaves one: it renames).
  if (bytes.length === 0) throw new Error(`${file} is empty; run \`npm run build\``);
  const mode = process.env.ETCD_LAB_CODE_CACHE ?? "";
  const enabled = mode !== "0";
  const debug = mode === "debug" ? (msg) => process.stderr.write(`code-cache: ${msg}\n`) : () => {};
  const cacheDir = path.join(dir, ".code-cache");
  const prefix = `${name}-`;
  const keep = `${prefix}${hex32(zlib.crc32(bytes))}${bytes.length.toString(16)}-`;
  const v8Key = hex32(
    zlib.crc32([process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ""].join("\0")),
  );
  const prof = profile === "command" ? profileOf(process.argv.slice(2)) : "main";
  const cacheFile = path.join(cacheDir, `${keep}${prof}-${v8Key}.bin`);
  const read = enabled ? readCache(cacheFile) : "off";
  const cached = typeof read === "string" ? undefined : read;
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${bytes.toString(isAscii(bytes) ? "latin1" : "utf8")}\n})`;
  const readMs = performance.now();
  const script = new vm.Script(wrapped, {
    filename: file,
    ...(cached ? { cachedData: cached } : {}),
  });
  const state = typeof read === "string" ? read : script.cachedDataRejected ? "rejected" : "hit";
  debug(`${state} ${path.basename(cacheFile)}`);
  if (enabled && state !== "hit") {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      // Members of one cluster start together and miss together: the first to get here writes, the others
      // skip serialising (tens of milliseconds of a blocked event loop) when a good cache is there by now.
      if (state === "none" && fs.existsSync(cacheFile)) return debug(`skipped ${path.basename(cacheFile)}`);
      // A read-only install: do not serialise what cannot be written (each run would pay for it).
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        fs.accessSync(cacheDir, fs.constants.W_OK);
      } catch {
        return debug(`could not write ${path.basename(cacheFile)}`);
      }
      const ms = performance.now();
      let data;
      try {
        data = script.createCachedData();
      } catch {
        return debug(`could not serialise ${path.basename(cacheFile)}`);
      }
      const ok = writeCache(cacheDir, cacheFile, prefix, keep, data);
      debug(
        `${ok ? "wrote" : "could not write"} ${path.basename(cacheFile)} in ${(performance.now() - ms).toFixed(0)} ms`,
      );
    };
    process.once("exit", write);
    if (writeAfterMs > 0) setTimeout(write, writeAfterMs).unref();
  }
  const module = { exports: {}, filename: file, id: file, loaded: false };
  const compiledMs = performance.now();
  if (mode === "debug") {
    // Where start-up time goes, in ms since the process started (Node's own bootstrap ends at "node").
    process.once("exit", () =>
      debug(
        `timing node ${performance.nodeTiming.bootstrapComplete.toFixed(1)} loader ${loaderMs.toFixed(1)} ` +
          `read ${readMs.toFixed(1)} compiled ${compiledMs.toFixed(1)} ran ${ranMs.toFixed(1)} ` +
          `exit ${performance.now().toFixed(1)}`,
      ),
    );
  }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dir);
  const ranMs = performance.now();
  module.loaded = true;
}

module.exports = { runBundle, profileOf };
