import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { precompress } from "./precompress.mjs";

describe("precompress", () => {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-precompress-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes .br and .gz beside text files that shrink, and nothing for tiny or binary files", () => {
    mkdirSync(join(dir, "_astro"));
    const js = "const x = 'etcd';\n".repeat(500);
    writeFileSync(join(dir, "_astro", "a.js"), js);
    writeFileSync(join(dir, "tiny.css"), "a{}");
    writeFileSync(join(dir, "pic.png"), Buffer.alloc(5000));
    writeFileSync(join(dir, "tiny.css.gz"), "stale"); // from an earlier build: removed
    const r = precompress(dir);
    expect(r.files).toBe(2);
    expect(gunzipSync(readFileSync(join(dir, "_astro", "a.js.gz"))).toString()).toBe(js);
    expect(brotliDecompressSync(readFileSync(join(dir, "_astro", "a.js.br"))).toString()).toBe(js);
    expect(r.brotliBytes).toBeLessThan(r.gzipBytes);
    expect(existsSync(join(dir, "tiny.css.gz"))).toBe(false);
    expect(existsSync(join(dir, "tiny.css.br"))).toBe(false);
    expect(existsSync(join(dir, "pic.png.gz"))).toBe(false);
  });
});
