import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerProcessMetrics } from "./process-metrics.ts";
import { Registry } from "./registry.ts";

/** fakeProc writes the /proc files the collector reads, with known values. */
function fakeProc(): string {
  const root = mkdtempSync(join(tmpdir(), "fake-proc-"));
  mkdirSync(join(root, "self", "fd"), { recursive: true });
  mkdirSync(join(root, "self", "net"), { recursive: true });
  for (const fd of ["0", "1", "2", "7"]) writeFileSync(join(root, "self", "fd", fd), "");
  // pid (comm with a space) state ppid ... utime=150 stime=20 ... starttime=2608360 vsize=12096311296 rss=383
  const fields = ["S", "1", "1", "1", "0", "-1", "0", "0", "0", "0", "0", "150", "20", "0", "0", "20", "0", "9", "0"];
  writeFileSync(join(root, "self", "stat"), `42 (etcd (lab)) ${fields.join(" ")} 2608360 12096311296 383 0\n`);
  writeFileSync(join(root, "stat"), "cpu  1 2 3\nbtime 1796000000\nprocesses 9\n");
  writeFileSync(
    join(root, "self", "limits"),
    [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max open files            20000                1048576              files     ",
      "Max address space         unlimited            unlimited            bytes     ",
    ].join("\n"),
  );
  writeFileSync(
    join(root, "self", "net", "netstat"),
    "TcpExt: SyncookiesSent\nTcpExt: 0\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 8756054950 7531998518\n",
  );
  return root;
}

describe("process metrics", () => {
  it("print the process collector's families with its help texts, types and values", () => {
    const r = new Registry();
    expect(registerProcessMetrics(r, fakeProc())).toBe(true);
    const text = r.expose();
    const value = (name: string): string => new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? "missing";
    expect(text).toContain(
      "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n" +
        "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.7\n",
    );
    expect(text).toContain(
      "# HELP process_max_fds Maximum number of open file descriptors.\n# TYPE process_max_fds gauge\n",
    );
    expect(value("process_max_fds")).toBe("20000");
    expect(text).toContain("# HELP process_open_fds Number of open file descriptors.\n");
    expect(value("process_open_fds")).toBe("4");
    expect(text).toContain("# HELP process_resident_memory_bytes Resident memory size in bytes.\n");
    expect(Number(value("process_resident_memory_bytes"))).toBeGreaterThan(1e6); // this process's own RSS
    expect(text).toContain(
      "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n",
    );
    expect(value("process_start_time_seconds")).toBe("1.7960260836e+09");
    expect(value("process_virtual_memory_bytes")).toBe("1.2096311296e+10");
    expect(text).toContain(
      "# HELP process_virtual_memory_max_bytes Maximum amount of virtual memory available in bytes.\n",
    );
    expect(value("process_virtual_memory_max_bytes")).toBe("1.8446744073709552e+19");
    expect(text).toContain(
      "# HELP process_network_receive_bytes_total Number of bytes received by the process over the network.\n" +
        "# TYPE process_network_receive_bytes_total counter\n",
    );
    expect(value("process_network_receive_bytes_total")).toBe("8.75605495e+09");
    expect(text).toContain(
      "# HELP process_network_transmit_bytes_total Number of bytes sent by the process over the network.\n",
    );
    expect(value("process_network_transmit_bytes_total")).toBe("7.531998518e+09");
  });

  it("registers nothing where there is no /proc", () => {
    const r = new Registry();
    expect(registerProcessMetrics(r, join(tmpdir(), "no-such-proc"))).toBe(false);
    expect(r.expose()).not.toContain("process_");
  });

  it("reads this process's real /proc on Linux", () => {
    if (process.platform !== "linux") return;
    const r = new Registry();
    registerProcessMetrics(r);
    const text = r.expose();
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
    const started = value("process_start_time_seconds");
    expect(Math.abs(started - (Date.now() / 1000 - process.uptime()))).toBeLessThan(5);
    expect(value("process_open_fds")).toBeGreaterThan(2);
    expect(value("process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(value("process_virtual_memory_bytes")).toBeGreaterThan(value("process_resident_memory_bytes"));
  });
});
