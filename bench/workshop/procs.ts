// Process trees and their memory, from Linux /proc: which processes the lab server runs, and their PSS
// (proportional set size: a shared page divided among the processes that map it, so PSS adds up to what the
// machine spends) and RSS, from /proc/<pid>/smaps_rollup.
import { readdirSync, readFileSync } from "node:fs";

/** Mem is a set of processes' resident and proportional set sizes, in bytes. */
export interface Mem {
  rss: number;
  pss: number;
  processes: number;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ")".
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[1]);
  } catch {
    return null;
  }
}

/** children maps every live process to its children (one scan of /proc). */
function childrenMap(): Map<number, number[]> {
  const kids = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const ppid = parentOf(pid);
    if (ppid === null) continue;
    kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
  }
  return kids;
}

/** descendants lists every process below `root` (not root itself), from one scan of /proc. */
export function descendants(root: number, kids = childrenMap()): number[] {
  const out: number[] = [];
  const stack = [...(kids.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(kids.get(pid) ?? []));
  }
  return out;
}

/** memOf adds up the RSS and PSS of processes (one that is gone counts 0). */
export function memOf(pids: Iterable<number>): Mem {
  const m: Mem = { rss: 0, pss: 0, processes: 0 };
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
      m.rss += kb("Rss");
      m.pss += kb("Pss");
      m.processes++;
    } catch {
      // gone (or a kernel thread without a memory map)
    }
  }
  return m;
}

/** SessionTrees are the server's processes split into what belongs to the sessions and the rest. */
export interface SessionTrees {
  /** sessions: the trees whose root a session reports (its members' and shells' pids) with all below them. */
  sessions: Mem;
  /** other: the server's remaining descendants (watchdog, warm pool clusters, a check's tool run right now). */
  other: Mem;
  /** server: the lab server's own process. */
  server: Mem;
  /** unknownRoots: pids sessions report that are not processes below the server (a sandbox's own pid view). */
  unknownRoots: number[];
}

/**
 * sessionTrees splits the processes below the lab server `serverPid` into the trees rooted at `roots` (the pids
 * the sessions report) and the rest, and measures each part.
 */
export function sessionTrees(serverPid: number, roots: number[]): SessionTrees {
  const kids = childrenMap();
  const below = new Set(descendants(serverPid, kids));
  const mine = new Set<number>();
  const unknownRoots: number[] = [];
  for (const r of roots) {
    if (!below.has(r)) {
      unknownRoots.push(r);
      continue;
    }
    mine.add(r);
    for (const d of descendants(r, kids)) mine.add(d);
  }
  return {
    sessions: memOf(mine),
    other: memOf([...below].filter((p) => !mine.has(p))),
    server: memOf([serverPid]),
    unknownRoots,
  };
}

/** cpuSeconds is a process's user + system CPU time so far, in seconds (0 when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the comm: state(0) ppid(1) ... utime(11) stime(12), in clock ticks (100 per second on Linux).
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
