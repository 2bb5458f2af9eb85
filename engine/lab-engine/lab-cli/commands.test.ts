import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { appendFileSync, mkdtempSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { parseMs, run, UsageError } from "./commands.ts";
import { humanizeBytes } from "../../go/humanize.ts";
import { checkLine, formatEvent, statusTable } from "./format.ts";
import type { ClusterStatus, LabEvent } from "../index.ts";
import { noFaults } from "../types/status-types.ts";

const noServer = { url: "http://127.0.0.1:9", session: "s", token: "t" };
const out = () => {
  const lines: string[] = [];
  return {
    lines,
    o: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), progress: () => undefined },
  };
};

describe("lab command", () => {
  it("reads durations", () => {
    expect([parseMs("50ms"), parseMs("1s"), parseMs("1.5s"), parseMs("200"), parseMs("0"), parseMs("off")]).toEqual([
      50, 1000, 1500, 200, 0, 0,
    ]);
    expect(() => parseMs("fast")).toThrow('expected a duration such as 50ms, 1s or off, got "fast"');
    expect(() => parseMs("2m")).toThrow(UsageError);
    expect(() => parseMs("61s")).toThrow("at most 60s");
  });

  it("explains bad command lines before calling the server", async () => {
    const { o } = out();
    await expect(run(["kill"], noServer, o)).rejects.toThrow("expected a member name like m1, got nothing");
    await expect(run(["kill", "etcd-1"], noServer, o)).rejects.toThrow('expected a member name like m1, got "etcd-1"');
    await expect(run(["partition"], noServer, o)).rejects.toThrow("expected groups of members");
    await expect(run(["delay", "m1"], noServer, o)).rejects.toThrow("expected peers");
    await expect(run(["frobnicate"], noServer, o)).rejects.toThrow(
      `unknown command "frobnicate"; run 'lab help' for the list`,
    );
    await expect(run(["status"], noServer, o)).rejects.toThrow(/cannot reach the lab server at http:\/\/127.0.0.1:9/);
    const help = out();
    expect(await run(["help"], noServer, help.o)).toBe(0);
    expect(help.lines[0]).toContain("lab controls this lab's cluster");
  });

  it("prints sizes like etcdctl (go-humanize SI)", () => {
    expect([
      humanizeBytes(0),
      humanizeBytes(9),
      humanizeBytes(25_000),
      humanizeBytes(90_112),
      humanizeBytes(2_147_483_648),
    ]).toEqual(["0 B", "9 B", "25 kB", "90 kB", "2.1 GB"]);
  });

  it("prints the status table and events for people", () => {
    const m = {
      name: "m1",
      id: "8e9e05c52164694d",
      process: "up" as const,
      pid: 1,
      clientUrl: "",
      peerUrl: "",
      metricsUrl: "",
      reachable: true,
      isLeader: true,
      leader: "m1",
      term: 2,
      raftIndex: 9,
      appliedIndex: 9,
      dbSize: 25_000,
      dbSizeInUse: 20_000,
      dbSizeQuota: 2_147_483_648,
      alarms: [],
      errors: [],
      leaderChanges: 1,
      walFsyncP99Ms: 1.5,
      faults: { ...noFaults(), dropIn: ["m2"], dropOut: ["m2"], fsyncDelayMs: 50 },
    };
    const s: ClusterStatus = {
      session: "s",
      at: 0,
      leader: "m1",
      quorum: { members: 3, needed: 2, up: 2, hasQuorum: true },
      members: [m],
      revision: 7,
    };
    const table = statusTable(s).split("\n");
    expect(table[0]).toMatch(/^MEMBER\s+ID\s+PROCESS\s+LEADER\s+TERM/);
    expect(table[1]).toMatch(
      /^m1\s+8e9e05c52164694d\s+up\s+\*\s+2\s+9\s+9\s+25 kB\s+20 kB\s+2.1 GB\s+1.5 ms\s+cut off from m2; fsync \+50ms$/,
    );
    expect(table.at(-1)).toBe("leader: m1   quorum: 2/3 up, 2 needed (ok)   revision: 7");
    const shrunk = statusTable({
      ...s,
      shrunk: [{ what: "--quota-backend-bytes", value: "32 MiB", realDefault: "etcd's default: 2 GiB" }],
    }).split("\n");
    expect(shrunk.slice(-2)).toEqual([
      "shrunk for this lab (the real default in brackets):",
      "  --quota-backend-bytes 32 MiB (etcd's default: 2 GiB)",
    ]);
    const e: LabEvent = {
      type: "control",
      action: "kill",
      member: "m2",
      source: "cli",
      seq: 4,
      at: Date.UTC(2026, 0, 1, 12, 3, 4),
    };
    expect(formatEvent(e)).toBe("12:03:04 #4 control kill m2 (cli)");
  });

  it("says in words and local time when a task passed before the cluster it checks now", () => {
    const base = { task: "t1", title: "T", goal: null, checkedAt: "", message: "Passed earlier." };
    const passedAt = new Date(2026, 11, 2, 21, 20).toISOString();
    expect(checkLine({ ...base, passed: false, passedAt: null, current: null, message: "no key" })).toBe(
      "FAIL t1: no key",
    );
    expect(
      checkLine({ ...base, passed: true, passedAt, current: { passed: true, message: "ok" }, message: "ok" }),
    ).toBe("PASS t1: ok");
    expect(checkLine({ ...base, passed: true, passedAt, current: { passed: false, message: "no key" } })).toBe(
      "PASS t1: passed earlier on 2 Dec, 21:20; the cluster you have now does not pass: no key",
    );
  });

  it("controls several members in one command, in order, and stops at the first refusal", async () => {
    const calls: string[] = [];
    const server = createServer((req, res) => {
      calls.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      const member = /members\/(m\d+)\//.exec(req.url ?? "")?.[1] ?? "?";
      if (member === "m9") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "not_found", message: "no member m9 in this session" } }));
        return;
      }
      const event: LabEvent = { type: "control", action: "stop", member, source: "cli", seq: calls.length, at: 0 };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ event }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const env = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, session: "s1", token: "tok" };
      const { lines, o } = out();
      expect(await run(["stop", "m1", "m2"], env, o)).toBe(0);
      expect(calls).toEqual([
        "POST /api/sessions/s1/members/m1/stop Bearer tok",
        "POST /api/sessions/s1/members/m2/stop Bearer tok",
      ]);
      expect(lines).toEqual(["00:00:00 #1 control stop m1 (cli)", "00:00:00 #2 control stop m2 (cli)"]);
      await expect(run(["start", "m9", "m3"], env, o)).rejects.toThrow("no member m9 in this session");
      expect(calls).toHaveLength(3);
      await expect(run(["kill", "m1", "leader"], env, o)).rejects.toThrow(
        'expected a member name like m1, got "leader"',
      );
      expect(calls).toHaveLength(3);
    } finally {
      server.close();
    }
  });

  it("forces a kubelet sync and lists the static pods (lab kube sync, lab kube static-pods)", async () => {
    const calls: string[] = [];
    const server = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url?.endsWith("/kube/sync/m2")) {
        res.end(
          JSON.stringify({
            master: "m2",
            changed: ["etcd"],
            log: ['I1202 00:00:00.000000  1 kubelet.go:2442] "SyncLoop ADD"'],
          }),
        );
        return;
      }
      const pod = (component: string, over: object) => ({
        file: `${component}.yaml`,
        podName: `${component}-k8s-master-1`,
        namespace: "kube-system",
        uid: "u",
        component,
        image: `registry.k8s.io/${component}:x`,
        running: false,
        waiting: null,
        restarts: 0,
        lastError: null,
        ...over,
      });
      res.end(
        JSON.stringify({
          masters: [
            {
              master: "m1",
              node: "k8s-master-1",
              manifestDir: "~/masters/m1/etc/kubernetes/manifests",
              pods: [
                pod("etcd", { waiting: "CrashLoopBackOff", restarts: 3, lastError: "exited with code 2: bad flag" }),
                pod("kube-scheduler", { waiting: "NoRuntime" }),
              ],
              containers: [],
              wanted: ["kube-scheduler"],
            },
            {
              master: "m2",
              node: "k8s-master-2",
              manifestDir: "~/masters/m2/etc/kubernetes/manifests",
              pods: [],
              containers: [],
              wanted: [],
            },
          ],
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const env = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, session: "s1", token: "tok" };
      const sync = out();
      expect(await run(["kube", "sync", "m2"], env, sync.o)).toBe(0);
      expect(sync.lines).toEqual([
        'I1202 00:00:00.000000  1 kubelet.go:2442] "SyncLoop ADD"',
        "kubelet on k8s-master-2 (simulated) read /etc/kubernetes/manifests: changed: etcd",
      ]);
      const pods = out();
      expect(await run(["kube", "static-pods"], env, pods.o)).toBe(0);
      const table = pods.lines.join("\n").split("\n");
      expect(table[1]).toMatch(/^NODE\s+POD\s+STATE\s+RESTARTS\s+IMAGE\s+NOTE$/);
      expect(table[2]).toMatch(
        /^k8s-master-1\s+kube-system\/etcd-k8s-master-1\s+CrashLoopBackOff\s+3\s+registry\.k8s\.io\/etcd:x\s+exited with code 2: bad flag$/,
      );
      expect(table[3]).toMatch(/NoRuntime\s+0\s+\S+\s+wanted: no simulated component runs it yet$/);
      expect(table[4]).toBe("k8s-master-2: no static pod (~/masters/m2/etc/kubernetes/manifests is empty)");
      expect(calls).toEqual(["POST /api/sessions/s1/kube/sync/m2", "GET /api/sessions/s1/kube/static-pods"]);
      await expect(run(["kube", "sync"], env, sync.o)).rejects.toThrow(
        "expected a master like m1 (or k8s-master-1), got nothing",
      );
      await expect(run(["kube", "frob"], env, sync.o)).rejects.toThrow(
        'unknown kube command "frob"; expected lab kube status|pods|static-pods|pause|resume|compact-now|sync <m>|kubelet-restart <node>',
      );
    } finally {
      server.close();
    }
  });

  it("answers where a member lives and the session's params (lab ep, datadir, pid, logs, param)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "etcd-lab-cli-"));
    const logFile = join(dir, "m2.log");
    writeFileSync(logFile, "line 1\nline 2\nline 3\n");
    const member = (name: string, n: number, pid: number | null) => ({
      name,
      clientUrl: `http://127.0.0.1:${2379 + n}`,
      peerUrl: `http://127.0.0.1:${2380 + n}`,
      metricsUrl: `http://127.0.0.1:${2381 + n}`,
      dataDir: `/ws/home/masters/${name}/var/lib/etcd`,
      pid,
      logFile: name === "m2" ? logFile : join(dir, `${name}.log`),
    });
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/api/sessions/s1/params") {
        res.end(JSON.stringify({ params: { TARGET: "m2", KEYS: "17" }, declared: ["TARGET", "KEYS"] }));
        return;
      }
      res.end(JSON.stringify({ id: "s1", members: [member("m1", 0, 4242), member("m2", 10, null)] }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const env = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, session: "s1", token: "tok" };
      const say = async (...argv: string[]) => {
        const x = out();
        const code = await run(argv, env, x.o);
        return { code, lines: x.lines };
      };
      expect(await say("ep", "m1")).toEqual({ code: 0, lines: ["http://127.0.0.1:2379"] });
      expect(await say("peer-url", "m2")).toEqual({ code: 0, lines: ["http://127.0.0.1:2390"] });
      expect(await say("metrics", "m1")).toEqual({ code: 0, lines: ["http://127.0.0.1:2381"] });
      expect(await say("datadir", "m2")).toEqual({ code: 0, lines: ["/ws/home/masters/m2/var/lib/etcd"] });
      expect(await say("pid", "m1")).toEqual({ code: 0, lines: ["4242"] });
      await expect(say("pid", "m2")).rejects.toThrow("member m2 is not running (lab start m2)");
      await expect(say("ep", "m7")).rejects.toThrow('no member named "m7" (members: m1, m2)');
      await expect(say("ep")).rejects.toThrow("expected a member name like m1, got nothing");
      expect(await say("logs", "m2")).toEqual({ code: 0, lines: ["line 1", "line 2", "line 3"] });
      expect(await say("logs", "m2", "-n", "2")).toEqual({ code: 0, lines: ["line 2", "line 3"] });
      expect(await say("logs", "m1")).toEqual({ code: 0, lines: [] });
      await expect(say("logs", "m2", "-n", "x")).rejects.toThrow("expected a number of lines after -n");
      expect(await say("param")).toEqual({ code: 0, lines: ["KEYS=17", "TARGET=m2"] });
      expect(await say("param", "TARGET")).toEqual({ code: 0, lines: ["m2"] });
      await expect(say("param", "NOPE")).rejects.toThrow('no param "NOPE" in this lab; its params are KEYS, TARGET');
      const port = await say("free-port");
      expect(Number(port.lines[0])).toBeGreaterThan(0);

      // -f prints what the member appends, and starts over when the file is truncated.
      const abort = new AbortController();
      const followed: string[] = [];
      const following = run(["logs", "m2", "-n", "1", "-f"], env, {
        out: (l) => followed.push(l),
        err: () => undefined,
        progress: () => undefined,
        raw: (t) => followed.push(...t.split("\n").filter(Boolean)),
        signal: abort.signal,
      });
      const until = async (want: string) => {
        const deadline = Date.now() + 5000;
        while (!followed.includes(want)) {
          if (Date.now() > deadline) throw new Error(`never printed ${want}: ${JSON.stringify(followed)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await until("line 3");
      appendFileSync(logFile, "line 4\n");
      await until("line 4");
      truncateSync(logFile, 0);
      await until("line 4"); // nothing new yet
      appendFileSync(logFile, "fresh\n");
      await until("fresh");
      abort.abort();
      expect(await following).toBe(0);
      expect(followed).toEqual(["line 3", "line 4", "fresh"]);
    } finally {
      server.close();
    }
  });
});
