import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearWorkspace, createWorkspace, inside, removeStaleWorkspaces, workspaceFiles } from "./workspace.ts";

describe("workspace", () => {
  it("lays out a session and clears it for a reset, keeping the event log", () => {
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-home-"));
    const ws = createWorkspace(home, "s1", { pid: process.pid, runId: "run" });
    expect(existsSync(join(ws, "backups"))).toBe(true);
    expect(existsSync(join(ws, "home"))).toBe(true);
    writeFileSync(join(ws, "events.jsonl"), "{}\n");
    mkdirSync(join(ws, "m1.etcd"));
    writeFileSync(join(ws, "home", "x"), "");
    clearWorkspace(ws);
    expect(existsSync(join(ws, "m1.etcd"))).toBe(false);
    expect(existsSync(join(ws, "home", "x"))).toBe(false);
    expect(existsSync(join(ws, "events.jsonl"))).toBe(true);
  });

  it("removes sessions of dead servers at start-up, keeps a live server's and its own", () => {
    const home = mkdtempSync(join(tmpdir(), "etcd-lab-home-"));
    createWorkspace(home, "dead", { pid: 2 ** 22 + 12345, runId: "old" });
    createWorkspace(home, "live", { pid: process.pid, runId: "other" });
    createWorkspace(home, "mine", { pid: process.pid, runId: "me" });
    expect(removeStaleWorkspaces(home, "me")).toBe(1);
    expect(existsSync(join(home, "sessions", "dead"))).toBe(false);
    expect(existsSync(join(home, "sessions", "live"))).toBe(true);
    expect(existsSync(join(home, "sessions", "mine"))).toBe(true);
  });

  it("gives checks read access inside the workspace only", async () => {
    const root = mkdtempSync(join(tmpdir(), "etcd-lab-ws-"));
    writeFileSync(join(root, "a.txt"), "hello");
    const f = workspaceFiles(root);
    expect(await f.read("a.txt")).toBe("hello");
    expect(await f.read("missing.txt")).toBeNull();
    expect(await f.exists("a.txt")).toBe(true);
    expect(await f.list(".")).toEqual(["a.txt"]);
    expect(await f.list("nope")).toEqual([]);
    await expect(f.read("../../etc/passwd")).rejects.toThrow('path "../../etc/passwd" is outside the workspace');
    expect(() => inside(root, "/etc/passwd")).toThrow("outside the workspace");
    expect(inside(root, "home/x")).toBe(join(root, "home", "x"));
  });
});
