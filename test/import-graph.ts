// The repository's import graph between folders, for test/tidy.test.ts: which folder imports which, and the
// cycles among them. A folder is a part of a product (engine/store/raft, engine/tools/etcdctl,
// engine/lab-engine/session), a shared folder (engine/common, engine/go), lab/ or site/. Test files and testdata
// are left out: a test may reach across to check a contract.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** FolderGraph maps a folder to the folders it imports, each with the first import that made the edge. */
export type FolderGraph = Map<string, Map<string, string>>;

const products = new Set(["store", "tools", "lab-engine"]);
const importRe = /(?:import|export)\s[^'"]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** folderOf names the folder a repository-relative path belongs to. */
export function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "engine" && products.has(parts[1] ?? "")) {
    return parts.length > 3 ? parts.slice(0, 3).join("/") : parts.slice(0, 2).join("/");
  }
  if (parts[0] === "engine") return parts.slice(0, 2).join("/");
  return parts[0] ?? path;
}

/** sourceFiles lists the non-test .ts files under dir (repository-relative). A missing dir throws. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) {
      if (name !== "testdata" && name !== "node_modules" && name !== "gen") out.push(...sourceFiles(root, path));
    } else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) {
      out.push(path);
    }
  }
  return out;
}

/** folderGraph reads every source file's relative imports and keeps the edges between different folders. */
export function folderGraph(root: string, files: readonly string[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of files) {
    const from = folderOf(file);
    for (const m of readFileSync(join(root, file), "utf8").matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? "";
      const target = relative(root, resolve(root, dirname(file), spec))
        .split(sep)
        .join("/");
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${file} imports ${spec}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** cycles returns the strongly connected components of more than one folder (Tarjan), each sorted. */
export function cycles(graph: FolderGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** describeCycle prints a cycle's edges with the import behind each, for a failing test's message. */
export function describeCycle(graph: FolderGraph, component: readonly string[]): string {
  const lines = [`cycle: ${component.join(", ")}`];
  for (const a of component) {
    for (const b of component) {
      const why = graph.get(a)?.get(b);
      if (why) lines.push(`  ${a} -> ${b}: ${why}`);
    }
  }
  return lines.join("\n");
}
