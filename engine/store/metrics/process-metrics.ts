// The process_* families that client_golang's process collector adds to every Go program's /metrics, etcd's
// included (names, help texts and types as etcd 3.6 prints them), read from /proc/self at scrape time as the
// collector does. Tools read them: `etcdctl check datascale` measures process_resident_memory_bytes before and
// after its puts. Only on Linux, like the collector's full set; elsewhere nothing is registered. Go's go_*
// runtime families have no Node.js counterpart and are not imitated (docs/etcd-differences.md).
import { readdirSync, readFileSync } from "node:fs";
import type { Registry } from "./registry.ts";

/** USER_HZ is the unit of the CPU times in /proc/<pid>/stat (100 on every Linux the collector supports). */
const USER_HZ = 100;
/** UNLIMITED is how the collector reports an unlimited rlimit: the largest uint64, as a float64. */
const UNLIMITED = 2 ** 64;

/** registerProcessMetrics adds the process collector's families to `r` (Linux only); it says whether it did. */
export function registerProcessMetrics(r: Registry, proc = "/proc"): boolean {
  const self = `${proc}/self`;
  if (statFields(self) === undefined) return false;
  const stat = (i: number): number => Number(statFields(self)?.[i] ?? NaN);
  r.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", () => {
    return (stat(11) + stat(12)) / USER_HZ;
  });
  r.gauge("process_max_fds", "Maximum number of open file descriptors.", () => limit(self, "Max open files"));
  r.gauge("process_open_fds", "Number of open file descriptors.", () => openFds(self));
  r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", () => process.memoryUsage.rss());
  r.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", () => {
    return stat(19) / USER_HZ + bootTimeSeconds(proc);
  });
  r.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", () => stat(20));
  r.gauge("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", () =>
    limit(self, "Max address space"),
  );
  r.counter("process_network_receive_bytes_total", "Number of bytes received by the process over the network.", () =>
    ipOctets(self, "InOctets"),
  );
  r.counter("process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", () =>
    ipOctets(self, "OutOctets"),
  );
  return true;
}

/** statFields splits /proc/<pid>/stat after the command name (which may hold spaces): index 0 is the state. */
function statFields(self: string): string[] | undefined {
  try {
    const text = readFileSync(`${self}/stat`, "latin1");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** limit reads a soft limit from /proc/<pid>/limits ("unlimited" as the collector prints it). */
function limit(self: string, name: string): number {
  try {
    const line = readFileSync(`${self}/limits`, "latin1")
      .split("\n")
      .find((l) => l.startsWith(name));
    const soft = line?.slice(name.length).trim().split(/\s+/)[0];
    if (soft === undefined) return NaN;
    return soft === "unlimited" ? UNLIMITED : Number(soft);
  } catch {
    return NaN;
  }
}

function openFds(self: string): number {
  try {
    return readdirSync(`${self}/fd`).length;
  } catch {
    return NaN;
  }
}

/** bootTimes caches the `btime` line of <proc>/stat (read once per proc root: it does not change). */
const bootTimes = new Map<string, number>();
function bootTimeSeconds(proc: string): number {
  let t = bootTimes.get(proc);
  if (t !== undefined) return t;
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync(`${proc}/stat`, "latin1"));
    t = m ? Number(m[1]) : NaN;
  } catch {
    t = NaN;
  }
  bootTimes.set(proc, t);
  return t;
}

/** ipOctets reads IpExt's InOctets/OutOctets from /proc/<pid>/net/netstat (a header line, then a value line). */
function ipOctets(self: string, field: "InOctets" | "OutOctets"): number {
  try {
    const lines = readFileSync(`${self}/net/netstat`, "latin1").split("\n");
    const at = lines.findIndex((l) => l.startsWith("IpExt:"));
    const names = lines[at]?.split(/\s+/) ?? [];
    const values = lines[at + 1]?.split(/\s+/) ?? [];
    const i = names.indexOf(field);
    return i > 0 ? Number(values[i]) : NaN;
  } catch {
    return NaN;
  }
}
