import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveStatic } from "./static-files.ts";

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
