// A session's directory (home/ with masters/<m>/var/lib/etcd, the members' data dirs; backups/, logs/,
// events.jsonl) and the lab home around it: $ETCD_LAB_HOME or <os tmpdir>/etcd-lab-<uid>, holding
// sessions/<id>/ and progress/.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readFile, readdir, stat } from "node:fs/promises";
import type { WorkspaceFiles } from "../types/check-context.ts";
import { pidExists } from "../host/pid.ts";

/** labHome is $ETCD_LAB_HOME or <os tmpdir>/etcd-lab-<uid>. */
export function labHome(): string {
  const fromEnv = process.env["ETCD_LAB_HOME"];
  if (fromEnv) return resolve(fromEnv);
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join(tmpdir(), `etcd-lab-${uid}`);
}

/** OwnerFile records which server process owns a session directory. */
interface OwnerFile {
  pid: number;
  runId: string;
}

/** createWorkspace makes <home>/sessions/<id>/ with backups/ and home/, and records its owner. */
export function createWorkspace(home: string, id: string, owner: OwnerFile): string {
  const dir = join(home, "sessions", id);
  mkdirSync(join(dir, "backups"), { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
  writeFileSync(join(dir, ".owner.json"), JSON.stringify(owner) + "\n");
  return dir;
}

/** clearWorkspace empties a workspace for a reset, keeping events.jsonl and the owner file. */
export function clearWorkspace(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name === "events.jsonl" || name === ".owner.json") continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
  mkdirSync(join(dir, "backups"), { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
}

/**
 * removeStaleWorkspaces deletes session directories whose owning server is gone (its pid is dead, or it is
 * a different run). Called at start-up: sessions do not survive a restart, their progress does.
 */
export function removeStaleWorkspaces(home: string, currentRunId: string): number {
  const sessions = join(home, "sessions");
  if (!existsSync(sessions)) return 0;
  let removed = 0;
  for (const id of readdirSync(sessions)) {
    const dir = join(sessions, id);
    let owner: OwnerFile | null = null;
    try {
      owner = JSON.parse(readFileSync(join(dir, ".owner.json"), "utf8")) as OwnerFile;
    } catch {
      owner = null;
    }
    if (owner && owner.runId !== currentRunId && pidExists(owner.pid)) continue; // another live server's
    if (owner?.runId === currentRunId) continue;
    rmSync(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** WorkspacePathError is a path that leaves the workspace. */
export class WorkspacePathError extends Error {
  override name = "WorkspacePathError";
}

/** inside resolves `path` inside `root`, refusing anything that escapes it. */
export function inside(root: string, path: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new WorkspacePathError(`path ${JSON.stringify(path)} is outside the workspace`);
  }
  return full;
}

/** workspaceFiles gives checks read access to a workspace. */
export function workspaceFiles(root: string): WorkspaceFiles {
  return {
    root,
    exists: async (p) => {
      try {
        await stat(inside(root, p));
        return true;
      } catch (err) {
        if (err instanceof WorkspacePathError) throw err;
        return false;
      }
    },
    read: async (p) => readFile(inside(root, p), "utf8").catch(missing),
    bytes: async (p) => readFile(inside(root, p)).then((b) => new Uint8Array(b), missing),
    list: async (p) =>
      readdir(inside(root, p)).then(
        (names) => names.sort(),
        () => [],
      ),
  };
}

function missing(err: unknown): null {
  if ((err as { code?: string }).code === "ENOENT" || (err as { code?: string }).code === "EISDIR") return null;
  throw err;
}
