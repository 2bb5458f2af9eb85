// The checks of lab 6 against fakes: a HashKV compact revision, a status sample, an event log and the answer
// file. Every message a check can give is proven here; test/lab/labs.test.ts proves them end to end.
import { describe, expect, it } from "vitest";
import type { CheckContext, CheckResult, ClusterStatus, LabEvent, MemberStatus } from "../lab-format.ts";
import { fakeCheckContext } from "../testing.ts";
import lab, { answerFile, churnValue, churnValueBytes, memberIds } from "./lab.ts";

const MB = 1_000_000;

function member(name: string, o: Partial<MemberStatus> = {}): MemberStatus {
  return {
    name,
    id: `${name}00000000000000`.slice(0, 16),
    process: "up",
    pid: 1,
    clientUrl: "",
    peerUrl: "",
    metricsUrl: "",
    reachable: true,
    isLeader: false,
    leader: "m2",
    term: 2,
    raftIndex: 500,
    appliedIndex: 500,
    dbSize: 41 * MB,
    dbSizeInUse: 2 * MB,
    dbSizeQuota: 2 * 1024 ** 3,
    alarms: [],
    errors: [],
    leaderChanges: 1,
    walFsyncP99Ms: null,
    faults: { dropIn: [], dropOut: [], delayMs: {}, fsyncDelayMs: 0 },
    ...o,
  };
}

/** bloated: every member 41 MB with 2 MB in use, m2 the leader. */
const bloated = (): MemberStatus[] => ["m1", "m2", "m3"].map((n) => member(n, { isLeader: n === "m2" }));
/** small: every member defragmented. */
const small = (): MemberStatus[] => bloated().map((m) => ({ ...m, dbSize: 2.1 * MB }));

function status(members: MemberStatus[], leader: string | null = "m2"): ClusterStatus {
  return {
    session: "s",
    at: 0,
    leader,
    quorum: { members: 3, needed: 2, up: 3, hasQuorum: true },
    members,
    revision: 2500,
  };
}

/** log numbers events; each is [at in seconds, body]. */
function log(...entries: Array<[number, Record<string, unknown>]>): LabEvent[] {
  const created = { type: "session.created", lab: lab.id, backend: "ours", members: ["m1", "m2", "m3"] };
  return [[0, created] as [number, Record<string, unknown>], ...entries].map(
    ([s, body], i) => ({ ...body, seq: i + 1, at: s * 1000 }) as unknown as LabEvent,
  );
}
const start = (member: string) => ({ type: "defrag.start", member });
const end = (member: string) => ({ type: "defrag.end", member, ok: true });
const exited = (member: string, dbBytes: number) => ({
  type: "member.exited",
  member,
  code: 0,
  signal: "SIGTERM",
  expected: true,
  dbBytes,
});
const started = (member: string, dbBytes: number) => ({ type: "member.started", member, pid: 2, dbBytes });
/** online does a defrag of each member in turn, 10 s apart, each lasting 0.2 s, from t = 100 s. */
const online = (...members: string[]) =>
  members.flatMap((m, i): Array<[number, Record<string, unknown>]> => [
    [100 + 10 * i, start(m)],
    [100.2 + 10 * i, end(m)],
  ]);
const offlineM3: Array<[number, Record<string, unknown>]> = [
  [50, exited("m3", 41 * MB)],
  [55, started("m3", 2.1 * MB)],
];

interface Fake {
  compactRev?: number;
  st?: ClusterStatus;
  events?: LabEvent[];
  answer?: string | null;
  params?: Record<string, string>;
  /** statusRpc answers the check's own Status call to one endpoint (the default: no answer). */
  statusRpc?: (endpoint: string) => Record<string, unknown>;
}

function ctx(f: Fake = {}): CheckContext {
  const client = {
    hashKV: async () => ({ hash: 1, compactRevision: f.compactRev ?? 2100, hashRevision: 2500 }),
    status: async (endpoint: string) => {
      if (!f.statusRpc) throw new Error("context deadline exceeded");
      return f.statusRpc(endpoint);
    },
  } as unknown as NonNullable<CheckContext["client"]>;
  const files = {
    root: "/",
    exists: async (p: string) => p === answerFile && f.answer !== null && f.answer !== undefined,
    read: async (p: string) => (p === answerFile ? (f.answer ?? null) : null),
    bytes: async () => null,
    list: async () => [],
  };
  return fakeCheckContext({
    lab: lab.id,
    endpoints: ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"],
    client,
    files,
    status: f.st ?? status(bloated()),
    events: f.events ?? log(),
    params: {
      MEMBER: "m1",
      OFFLINE: "m3",
      CHURN_WRITES: "2000",
      CHURN_REV: "2100",
      OFFLINE_ID: "m3000000000000000".slice(0, 16),
      ...f.params,
    },
  });
}

function check(id: string): (c: CheckContext) => Promise<CheckResult> {
  const task = lab.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task.check;
}

describe("setup helpers", () => {
  it("pads each churn value to 16 KiB of JSON", () => {
    const v = churnValue(1234);
    expect(v.length).toBe(churnValueBytes);
    expect(JSON.parse(v)).toMatchObject({ kind: "ChurnStatus", generation: 1234 });
  });
  it("reads member IDs from etcdctl member list", () => {
    const out =
      "8e9e05c52164694d, started, m1, http://127.0.0.1:2380, http://127.0.0.1:2379, false\n" +
      "91bc3c398fb3c146, started, m2, http://127.0.0.1:22380, http://127.0.0.1:22379, false\n";
    expect([...memberIds(out)]).toEqual([
      ["m1", "8e9e05c52164694d"],
      ["m2", "91bc3c398fb3c146"],
    ]);
  });
});

describe("compact-history", () => {
  const run = check("compact-history");
  it("fails until the history is compacted past the churn", async () => {
    expect(await run(ctx({ compactRev: 0 }))).toEqual({
      passed: false,
      message:
        "Nothing is compacted yet: etcd still keeps every version the churn wrote, up to revision 2100. Compact up to the current revision.",
    });
    expect((await run(ctx({ compactRev: -1 }))).message).toMatch(/^Nothing is compacted yet/);
    expect(await run(ctx({ compactRev: 1200 }))).toEqual({
      passed: false,
      message:
        "The history is compacted only up to revision 1200, but the churn wrote until 2100: compact up to the current revision.",
    });
  });
  it("passes at or past the churn's last revision, and shows the file unchanged", async () => {
    expect(await run(ctx({ compactRev: 2100 }))).toEqual({
      passed: true,
      message:
        "The history is compacted up to revision 2100 (the churn ended at 2100). m1's file is still 41.0 MB, but only 2.0 MB of it is in use.",
    });
  });
});

describe("reclaimable-bytes", () => {
  const run = check("reclaimable-bytes");
  const right = String(41 * MB - 2 * MB);
  it("needs the compaction first", async () => {
    expect((await run(ctx({ compactRev: 0, answer: right }))).message).toBe(
      "Compact the history first (task 1): until then the old versions are still in use and a defrag has nothing to give back.",
    );
  });
  it("asks for the file, and for the member to be up", async () => {
    expect((await run(ctx({ answer: null }))).message).toBe(
      "~/answers/reclaimable-bytes does not exist yet: write how many bytes a defrag of m1 would give back.",
    );
    const down = bloated().map((m) => (m.name === "m1" ? { ...m, reachable: false, process: "down" as const } : m));
    expect((await run(ctx({ answer: right, st: status(down) }))).message).toBe(
      "m1 is not answering, so its sizes cannot be read: start it (lab start m1).",
    );
  });
  it("passes the file minus what is in use", async () => {
    expect(await run(ctx({ answer: `${right}\n` }))).toEqual({
      passed: true,
      message:
        "Right: m1's file is 41000000 bytes with 2000000 in use, so a defrag would give back 39000000 bytes: 96 % of the file, the PERCENTAGE NOT IN USE column.",
    });
  });
  it("names each usual mistake", async () => {
    const cases: Array<[string, string, ClusterStatus?]> = [
      ["39 MB", '~/answers/reclaimable-bytes holds "39 MB": write one number of bytes, without units (like 12345678).'],
      ["96", '"96" looks like a percentage. Write a size in bytes: m1\'s DB SIZE minus its IN USE.'],
      [
        "41000000",
        "41000000 is m1's whole file (etcd_mvcc_db_total_size_in_bytes). Part of it holds live data: subtract etcd_mvcc_db_total_size_in_use_in_bytes.",
      ],
      [
        "2000000",
        "2000000 is what m1 has in use: the live data, which a defrag keeps. The answer is the rest of the file.",
      ],
      [
        "30000000",
        "30000000 is what a defrag would give back on m3; the task asks about m1 (lab param MEMBER).",
        status(bloated().map((m) => (m.name === "m3" ? { ...m, dbSize: 32 * MB } : m))),
      ],
      [
        "38000000",
        "38000000 is close but not exact: endpoint status rounds sizes to two or three digits. Read the exact bytes from m1's metrics.",
      ],
      ["12345678", "12345678 is not m1's DB SIZE minus its IN USE. Read both from curl -s $(lab metrics m1)/metrics."],
    ];
    for (const [answer, message, st] of cases) {
      expect(await run(ctx({ answer, ...(st ? { st } : {}) })), answer).toEqual({ passed: false, message });
    }
  });
  it("says when the member was defragmented after the answer could have been read", async () => {
    const st = status(small());
    expect((await run(ctx({ answer: "39000000", st, events: log(...online("m1")) }))).message).toBe(
      "39000000 does not match m1 now: m1 was defragmented after the churn, which changed its numbers. Read them again.",
    );
    expect(
      (await run(ctx({ answer: "39000000", st, params: { MEMBER: "m3" }, events: log(...offlineM3) }))).message,
    ).toBe(
      "39000000 does not match m3 now: m3 was defragmented after the churn, which changed its numbers. Read them again.",
    );
  });
});

describe("offline-defrag", () => {
  const run = check("offline-defrag");
  const afterOffline = () => bloated().map((m) => (m.name === "m3" ? { ...m, dbSize: 2.1 * MB } : m));
  it("needs the compaction first", async () => {
    expect((await run(ctx({ compactRev: 5 }))).message).toBe(
      "Compact the history first (task 1): an offline defrag only gives back pages that compaction has freed.",
    );
  });
  it("leads through stop, defrag and start", async () => {
    expect((await run(ctx())).message).toBe(
      "m3 has not been stopped yet: stop it, defragment its data directory with etcdutl, then start it.",
    );
    const down = bloated().map((m) => (m.name === "m3" ? { ...m, process: "down" as const, reachable: false } : m));
    expect((await run(ctx({ st: status(down), events: log([50, exited("m3", 41 * MB)]) }))).message).toBe(
      'm3 is stopped: now defragment its data directory (etcdutl defrag --data-dir "$(lab datadir m3)"), then start it.',
    );
  });
  it("sees a restart that did not shrink the file", async () => {
    const events = log([50, exited("m3", 41 * MB)], [55, started("m3", 41 * MB)]);
    expect((await run(ctx({ events }))).message).toBe(
      "m3 stopped with a 41.0 MB file and started with 41.0 MB: the file did not shrink. Defragment its data directory while it is stopped.",
    );
    const noSizes = log(
      [50, { type: "member.exited", member: "m3", code: 0, signal: null, expected: true }],
      [55, { type: "member.started", member: "m3", pid: 3 }],
    );
    expect((await run(ctx({ events: noSizes }))).message).toBe(
      "The event log has no file sizes for m3's last stop and start: stop it and start it again.",
    );
  });
  it("sees a member that was defragmented online before it stopped", async () => {
    const events = log(...online("m3"), [150, exited("m3", 2.1 * MB)], [155, started("m3", 2.1 * MB)]);
    expect((await run(ctx({ events, st: status(afterOffline()) }))).message).toBe(
      "m3's file was already 2.1 MB when it stopped: it had been defragmented online before, so offline there was nothing left to give back. `lab reset` brings back a bloated cluster (passed tasks stay passed).",
    );
  });
  it("needs the same member back, running and caught up", async () => {
    const events = log(...offlineM3);
    const newId = afterOffline().map((m) => (m.name === "m3" ? { ...m, id: "aaaabbbbccccdddd" } : m));
    expect((await run(ctx({ events, st: status(newId) }))).message).toBe(
      "m3 came back as a different member (aaaabbbbccccdddd, was m300000000000000): an offline defrag keeps the data dir and the member's identity. Reset the lab to try again.",
    );
    const replaced = log(...offlineM3, [
      56,
      { type: "datadir.replaced", member: "m3", oldClusterId: "1", newClusterId: "2" },
    ]);
    expect((await run(ctx({ events: replaced, st: status(afterOffline()) }))).message).toMatch(
      /^m3 came back as a different member/,
    );
    const starting = afterOffline().map((m) => (m.name === "m3" ? { ...m, process: "starting" as const } : m));
    expect((await run(ctx({ events, st: status(starting) }))).message).toBe(
      "m3's file went from 41.0 MB to 2.1 MB while it was stopped; now start it again.",
    );
    expect((await run(ctx({ events, st: status(afterOffline(), null) }))).message).toBe(
      "m3's file went from 41.0 MB to 2.1 MB while it was stopped, but the cluster has no leader right now: check again in a moment.",
    );
    const behind = afterOffline().map((m) => (m.name === "m3" ? { ...m, appliedIndex: 480 } : m));
    expect((await run(ctx({ events, st: status(behind) }))).message).toBe(
      "m3's file went from 41.0 MB to 2.1 MB while it was stopped; it is back but still catching up (applied index 480, the leader's 500). Check again in a moment.",
    );
  });
  it("passes a shrunk file, the same member ID and a caught-up member", async () => {
    expect(await run(ctx({ events: log(...offlineM3), st: status(afterOffline()) }))).toEqual({
      passed: true,
      message:
        "m3's file went from 41.0 MB to 2.1 MB while it was stopped, came back as the same member (m300000000000000) and has caught up with the leader (applied index 500).",
    });
  });
});

describe("online-defrag", () => {
  const run = check("online-defrag");
  const round = (...entries: Array<[number, Record<string, unknown>]>) => log(...offlineM3, ...entries);
  it("needs the compaction first", async () => {
    expect((await run(ctx({ compactRev: 0 }))).message).toBe(
      "Compact the history first (task 1): a defrag before it rewrites the whole history and gives back almost nothing.",
    );
  });
  it("counts what is done and what is left, the leader last", async () => {
    expect((await run(ctx({ events: round() }))).message).toBe(
      "No member was defragmented online yet: m1 and m2 still need a defrag; leave the leader (m2) for last.",
    );
    expect((await run(ctx({ events: round(...online("m1")) }))).message).toBe(
      "Defragmented so far: m1. m2 still needs a defrag; leave the leader (m2) for last.",
    );
    expect((await run(ctx({ events: log(...online("m1")) }))).message).toBe(
      "Defragmented so far: m1. m2 and m3 still need a defrag; leave the leader (m2) for last.",
    );
  });
  it("waits for a running defrag", async () => {
    expect((await run(ctx({ events: round([100, start("m1")]) }))).message).toBe(
      "m1 is being defragmented right now: until it finishes it serves no reads or writes. Check again when it is done.",
    );
  });
  it("refuses defrags at the same time", async () => {
    const parallel = round([100, start("m1")], [100.1, start("m2")], [100.3, end("m1")], [100.4, end("m2")]);
    expect((await run(ctx({ events: parallel }))).message).toBe(
      "The defrags of m2 and m1 overlapped: for a while both members stopped serving. Defragment one member at a time; do m1 again, alone.",
    );
  });
  it("refuses defrags back to back", async () => {
    const backToBack = round([100, start("m1")], [100.2, end("m1")], [100.5, start("m2")], [100.7, end("m2")]);
    expect((await run(ctx({ events: backToBack }))).message).toBe(
      "m1's defrag ended only 300 ms before m2's started: leave at least 5 s between two members and check etcdctl endpoint health in between, then do m2 again. A plain etcdctl defrag with every member in ETCDCTL_ENDPOINTS, or etcdctl defrag --cluster, does all of them back to back like this.",
    );
    const quick = round([100, start("m1")], [100.2, end("m1")], [103, start("m2")], [103.2, end("m2")]);
    expect((await run(ctx({ events: quick }))).message).toBe(
      "m1's defrag ended only 2.8 s before m2's started: leave at least 5 s between two members and check etcdctl endpoint health in between, then do m2 again.",
    );
  });
  it("refuses the leader before a follower", async () => {
    expect((await run(ctx({ events: round(...online("m2", "m1")) }))).message).toBe(
      "m2 was the leader when you defragmented it, and m1 came after it: defragment the followers first and the leader last. Do the round again, m2 last.",
    );
    expect((await run(ctx({ events: round(...online("m2")) }))).message).toBe(
      "m2 was the leader when you defragmented it, and m1 still waits for its defrag: the leader goes last. Defragment the followers, then m2 again.",
    );
    expect((await run(ctx({ events: log(...online("m2")) }))).message).toBe(
      "m2 was the leader when you defragmented it, and m1 and m3 still wait for theirs: the leader goes last. Defragment the followers, then m2 again.",
    );
  });
  it("needs every file compact, and every member up", async () => {
    const stillBig = small().map((m) => (m.name === "m1" ? { ...m, dbSize: 41 * MB } : m));
    expect((await run(ctx({ events: round(...online("m1", "m2")), st: status(stillBig) }))).message).toBe(
      "m1's file is still 96 % not in use (41.0 MB, 2.0 MB in use): defragment it again, now that the history is compacted.",
    );
    const m3Big = small().map((m) => (m.name === "m3" ? { ...m, dbSize: 41 * MB } : m));
    expect((await run(ctx({ events: round(...online("m1", "m2")), st: status(m3Big) }))).message).toBe(
      "m3's file is still 96 % not in use (41.0 MB, 2.0 MB in use): defragment it.",
    );
    const down = small().map((m) => (m.name === "m3" ? { ...m, reachable: false } : m));
    expect((await run(ctx({ events: round(...online("m1", "m2")), st: status(down) }))).message).toBe(
      "m3 is not answering: start it so that its file can be measured.",
    );
  });
  it("asks a member that missed the status sample once more", async () => {
    const slow = small().map((m) =>
      m.name === "m1" ? { ...m, reachable: false, clientUrl: "http://127.0.0.1:1" } : m,
    );
    const statusRpc = (endpoint: string) => {
      expect(endpoint).toBe("127.0.0.1:1");
      return {
        header: { memberId: 0xabcn },
        dbSize: 2.1 * MB,
        dbSizeInUse: 2 * MB,
        raftIndex: 500,
        raftAppliedIndex: 500,
      };
    };
    const events = round(...online("m1", "m2"));
    expect((await run(ctx({ events, st: status(slow), statusRpc }))).passed).toBe(true);
    expect((await run(ctx({ events, st: status(slow) }))).message).toBe(
      "m1 is not answering: start it so that its file can be measured.",
    );
  });
  it("passes followers first, the leader last, 5 s apart, and every file compact", async () => {
    expect(await run(ctx({ events: round(...online("m1", "m3", "m2")), st: status(small()) }))).toEqual({
      passed: true,
      message:
        "One at a time, at least 5 s apart: m1, m3, m2, the leader m2 last. Every file is now at most 1.5 × its data (m1 2.1 MB, m2 2.1 MB, m3 2.1 MB).",
    });
    // Without the offline defrag, every member must be done online.
    expect((await run(ctx({ events: log(...online("m1", "m3", "m2")), st: status(small()) }))).passed).toBe(true);
  });
});
