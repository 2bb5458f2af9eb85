// Lab 6, "Disk space: compaction vs defragmentation": a 3-member cluster whose db files were bloated by a churn
// of overwrites (/lab/churn/*, 16 KiB values, a couple of thousand times over 100 keys). The learner compacts the
// history, measures what a defrag would give back, defragments one member offline with etcdutl and the others
// online, one at a time, the leader last. Checks read the HashKV compact revision, the members' Status sizes
// and the event log (defrag.start/end from the members' own log lines; db file sizes when a member exits and
// starts), never keystrokes. The apiserver's 5-minute compaction is off so the history stays until compacted.
import {
  defineLab,
  type CheckContext,
  type CheckResult,
  type ClusterStatus,
  type MemberStatus,
  type SetupContext,
} from "../lab-format.ts";
import {
  defragsOf,
  judgeRound,
  leaderAt,
  minGapMs,
  offlineDefragged,
  offlineWindows,
  shrank,
  sinceClusterBuilt,
  type Defrag,
} from "./defrags.ts";
import { compactEnough, judgeReclaim, notInUsePercent, reclaimable, sizeText, type DbSizes } from "./sizes.ts";

/** answerFile is where task 2's answer goes (workspace-relative; ~/answers/reclaimable-bytes in the shell). */
export const answerFile = "home/answers/reclaimable-bytes";
const answerShown = "~/answers/reclaimable-bytes";

/** churnPrefix holds the keys the setup rewrites over and over. */
export const churnPrefix = "/lab/churn/";
/** churnKeys is how many keys the churn rewrites; churnValueBytes the size of each value. */
export const churnKeys = 100;
export const churnValueBytes = 16 * 1024;
const churnInFlight = 64;

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });

/** churnValue is one rewrite of a churn key: a small JSON status padded to churnValueBytes. */
export function churnValue(generation: number): string {
  const head = `{"kind":"ChurnStatus","generation":${generation},"padding":"`;
  return `${head}${"x".repeat(churnValueBytes - head.length - 2)}"}`;
}

/** churn rewrites the churn keys `writes` times in all, churnInFlight puts at a time. */
async function churn(store: SetupContext["store"], writes: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < writes) {
      const n = next++;
      await store.put(`${churnPrefix}${String(n % churnKeys).padStart(3, "0")}`, churnValue(n));
    }
  };
  await Promise.all(Array.from({ length: churnInFlight }, worker));
}

/** memberIds reads `etcdctl member list` (simple output: ID, status, name, ...) as name → hex id. */
export function memberIds(memberList: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const line of memberList.split("\n")) {
    const [id, , name] = line.split(", ");
    if (id && name && /^[0-9a-f]+$/.test(id)) ids.set(name, id);
  }
  return ids;
}

async function setup(ctx: SetupContext): Promise<void> {
  await churn(ctx.store, Number(ctx.params["CHURN_WRITES"] ?? 2000));
  ctx.setParam("CHURN_REV", String(await ctx.store.revision()));
  const list = await ctx.run("etcdctl member list");
  const offline = ctx.params["OFFLINE"] ?? "";
  const id = memberIds(list.stdout).get(offline);
  if (list.code !== 0 || id === undefined) {
    throw new Error(`setup: no member ID for ${offline} in etcdctl member list: ${list.stdout}${list.stderr}`);
  }
  ctx.setParam("OFFLINE_ID", id);
}

function param(ctx: CheckContext, name: string): string {
  const v = ctx.params[name];
  if (v === undefined) throw new Error(`lab param ${name} is not set: reset the lab`);
  return v;
}

/** compactRevision is the HashKV compact_revision of the first member that answers (0: never compacted). */
async function compactRevision(ctx: CheckContext): Promise<number> {
  const client = ctx.client;
  if (!client) throw new Error("the check has no etcd client");
  let lastError: unknown = new Error("no endpoint answered");
  for (const ep of ctx.endpoints) {
    try {
      return Math.max(0, Number((await client.hashKV(ep, 0, { timeoutMs: 3000 })).compactRevision));
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** notCompacted is the failure of a task that needs task 1 first, or null once the history is compacted. */
async function notCompacted(ctx: CheckContext, why: string): Promise<CheckResult | null> {
  const churnRev = Number(param(ctx, "CHURN_REV"));
  if ((await compactRevision(ctx)) >= churnRev) return null;
  return fail(`Compact the history first (task 1): ${why}`);
}

const sizesOf = (m: MemberStatus): DbSizes => ({ member: m.name, dbSize: m.dbSize, dbSizeInUse: m.dbSizeInUse });

const sizeLine = (m: MemberStatus): string => `${sizeText(m.dbSize)}, ${sizeText(m.dbSizeInUse)} in use`;

/**
 * statusNow samples every member, then asks a running member that missed the sample (a busy machine, a member
 * just out of a defrag) once more with a longer deadline, so that a slow answer is not taken for a dead member.
 */
async function statusNow(ctx: CheckContext): Promise<ClusterStatus> {
  const status = await ctx.status();
  const client = ctx.client;
  if (!client) return status;
  const members = await Promise.all(
    status.members.map(async (m): Promise<MemberStatus> => {
      if (m.reachable || m.process !== "up") return m;
      try {
        const r = await client.status(m.clientUrl.replace(/^https?:\/\//, ""), { timeoutMs: 5000 });
        const id = r.header ? r.header.memberId.toString(16) : m.id;
        return {
          ...m,
          reachable: true,
          id,
          dbSize: r.dbSize,
          dbSizeInUse: r.dbSizeInUse,
          raftIndex: r.raftIndex,
          appliedIndex: r.raftAppliedIndex,
        };
      } catch {
        return m;
      }
    }),
  );
  return { ...status, members };
}

async function checkCompacted(ctx: CheckContext): Promise<CheckResult> {
  const churnRev = Number(param(ctx, "CHURN_REV"));
  const rev = await compactRevision(ctx);
  if (rev === 0) {
    return fail(
      `Nothing is compacted yet: etcd still keeps every version the churn wrote, up to revision ${churnRev}. Compact up to the current revision.`,
    );
  }
  if (rev < churnRev) {
    return fail(
      `The history is compacted only up to revision ${rev}, but the churn wrote until ${churnRev}: compact up to the current revision.`,
    );
  }
  const status = await statusNow(ctx);
  const m = status.members.find((x) => x.reachable);
  const sizes = m
    ? ` ${m.name}'s file is still ${sizeText(m.dbSize)}, but only ${sizeText(m.dbSizeInUse)} of it is in use.`
    : "";
  return pass(`The history is compacted up to revision ${rev} (the churn ended at ${churnRev}).${sizes}`);
}

/** defraggedSince says whether a member was defragmented (online or offline) since the cluster was built. */
function defraggedSince(ctx: CheckContext, member: string): boolean {
  return defragsOf(ctx.events).some((d) => d.member === member) || offlineDefragged(ctx.events).includes(member);
}

async function checkReclaimAnswer(ctx: CheckContext): Promise<CheckResult> {
  const m = param(ctx, "MEMBER");
  const first = await notCompacted(
    ctx,
    "until then the old versions are still in use and a defrag has nothing to give back.",
  );
  if (first) return first;
  const text = await ctx.files.read(answerFile);
  if (text === null) {
    return fail(`${answerShown} does not exist yet: write how many bytes a defrag of ${m} would give back.`);
  }
  const answer = text.trim();
  const status = await statusNow(ctx);
  const target = status.members.find((x) => x.name === m);
  if (!target?.reachable) return fail(`${m} is not answering, so its sizes cannot be read: start it (lab start ${m}).`);
  const others = status.members.filter((x) => x.reachable).map(sizesOf);
  const verdict = judgeReclaim(answer, sizesOf(target), others);
  const shown = answer.length > 40 ? `${answer.slice(0, 40)}…` : answer;
  switch (verdict.kind) {
    case "right":
      return pass(
        `Right: ${m}'s file is ${target.dbSize} bytes with ${target.dbSizeInUse} in use, so a defrag would give back ${reclaimable(target)} bytes: ${notInUsePercent(target)} % of the file, the PERCENTAGE NOT IN USE column.`,
      );
    case "not-a-number":
      return fail(`${answerShown} holds "${shown}": write one number of bytes, without units (like 12345678).`);
    case "percentage":
      return fail(`"${shown}" looks like a percentage. Write a size in bytes: ${m}'s DB SIZE minus its IN USE.`);
    case "whole-file":
      return fail(
        `${shown} is ${m}'s whole file (etcd_mvcc_db_total_size_in_bytes). Part of it holds live data: subtract etcd_mvcc_db_total_size_in_use_in_bytes.`,
      );
    case "in-use":
      return fail(
        `${shown} is what ${m} has in use: the live data, which a defrag keeps. The answer is the rest of the file.`,
      );
    case "other-member":
      return fail(
        `${shown} is what a defrag would give back on ${verdict.member}; the task asks about ${m} (lab param MEMBER).`,
      );
    case "rounded":
      return fail(
        `${shown} is close but not exact: endpoint status rounds sizes to two or three digits. Read the exact bytes from ${m}'s metrics.`,
      );
    case "wrong":
      return fail(
        defraggedSince(ctx, m)
          ? `${shown} does not match ${m} now: ${m} was defragmented after the churn, which changed its numbers. Read them again.`
          : `${shown} is not ${m}'s DB SIZE minus its IN USE. Read both from curl -s $(lab metrics ${m})/metrics.`,
      );
  }
}

async function checkOfflineDefrag(ctx: CheckContext): Promise<CheckResult> {
  const m = param(ctx, "OFFLINE");
  const first = await notCompacted(ctx, "an offline defrag only gives back pages that compaction has freed.");
  if (first) return first;
  const windows = offlineWindows(ctx.events).filter((w) => w.member === m);
  const done = windows.filter(shrank).at(-1);
  const status = await statusNow(ctx);
  const now = status.members.find((x) => x.name === m);
  const running = now !== undefined && now.process !== "down";
  if (!done) {
    if (!running) {
      return fail(
        `${m} is stopped: now defragment its data directory (etcdutl defrag --data-dir "$(lab datadir ${m})"), then start it.`,
      );
    }
    const last = windows.at(-1);
    if (!last) {
      return fail(`${m} has not been stopped yet: stop it, defragment its data directory with etcdutl, then start it.`);
    }
    if (last.bytesAtExit === null || last.bytesAtStart === null) {
      return fail(`The event log has no file sizes for ${m}'s last stop and start: stop it and start it again.`);
    }
    if (now.reachable && last.bytesAtExit <= 1.5 * now.dbSizeInUse) {
      return fail(
        `${m}'s file was already ${sizeText(last.bytesAtExit)} when it stopped: it had been defragmented online before, so offline there was nothing left to give back. \`lab reset\` brings back a bloated cluster (passed tasks stay passed).`,
      );
    }
    return fail(
      `${m} stopped with a ${sizeText(last.bytesAtExit)} file and started with ${sizeText(last.bytesAtStart)}: the file did not shrink. Defragment its data directory while it is stopped.`,
    );
  }
  const replaced = sinceClusterBuilt(ctx.events).some((e) => e.type === "datadir.replaced" && e.member === m);
  const originalId = param(ctx, "OFFLINE_ID");
  if (replaced || (now?.id && now.id !== originalId)) {
    return fail(
      `${m} came back as a different member (${now?.id || "new data dir"}, was ${originalId}): an offline defrag keeps the data dir and the member's identity. Reset the lab to try again.`,
    );
  }
  const shrunk = `${m}'s file went from ${sizeText(done.bytesAtExit as number)} to ${sizeText(done.bytesAtStart as number)} while it was stopped`;
  if (!now?.reachable || now.process !== "up") return fail(`${shrunk}; now start it again.`);
  const leader = status.members.find((x) => x.name === status.leader && x.reachable);
  if (!leader) return fail(`${shrunk}, but the cluster has no leader right now: check again in a moment.`);
  if (leader.appliedIndex - now.appliedIndex > 10) {
    return fail(
      `${shrunk}; it is back but still catching up (applied index ${now.appliedIndex}, the leader's ${leader.appliedIndex}). Check again in a moment.`,
    );
  }
  return pass(
    `${shrunk}, came back as the same member (${now.id}) and has caught up with the leader (applied index ${now.appliedIndex}).`,
  );
}

const seconds = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const names = (ds: readonly Defrag[]): string => ds.map((d) => d.member).join(", ");
const and = (xs: readonly string[]): string =>
  xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1) as string}`;

async function checkOnlineRound(ctx: CheckContext): Promise<CheckResult> {
  const first = await notCompacted(ctx, "a defrag before it rewrites the whole history and gives back almost nothing.");
  if (first) return first;
  const status = await statusNow(ctx);
  const offline = offlineDefragged(ctx.events);
  const needed = status.members.map((x) => x.name).filter((n) => !offline.includes(n));
  const leaderNow = status.leader ?? "the leader";
  const verdict = judgeRound(defragsOf(ctx.events), needed, (at) => leaderAt(ctx.events, at, status.leader));
  switch (verdict.kind) {
    case "running":
      return fail(
        `${verdict.defrag.member} is being defragmented right now: until it finishes it serves no reads or writes. Check again when it is done.`,
      );
    case "overlap": {
      const { defrag: d, other: o } = verdict;
      const who = d.member === o.member ? `Two defrags of ${d.member}` : `The defrags of ${o.member} and ${d.member}`;
      return fail(
        `${who} overlapped: for a while both members stopped serving. Defragment one member at a time; do ${d.member} again, alone.`,
      );
    }
    case "too-close": {
      const { defrag: d, previous: p, gapMs } = verdict;
      const backToBack =
        gapMs < 1000
          ? " A plain etcdctl defrag with every member in ETCDCTL_ENDPOINTS, or etcdctl defrag --cluster, does all of them back to back like this."
          : "";
      return fail(
        `${p.member}'s defrag ended only ${seconds(gapMs)} before ${d.member}'s started: leave at least ${minGapMs / 1000} s between two members and check etcdctl endpoint health in between, then do ${d.member} again.${backToBack}`,
      );
    }
    case "leader-not-last": {
      const { defrag: d, next } = verdict;
      if (next) {
        return fail(
          `${d.member} was the leader when you defragmented it, and ${next.member} came after it: defragment the followers first and the leader last. Do the round again, ${leaderNow} last.`,
        );
      }
      const waiting = needed.filter((n) => n !== d.member);
      const wait = waiting.length > 1 ? "still wait for theirs" : "still waits for its defrag";
      return fail(
        `${d.member} was the leader when you defragmented it, and ${and(waiting)} ${wait}: the leader goes last. Defragment the followers, then ${d.member} again.`,
      );
    }
    case "missing": {
      const rest = `${and(verdict.missing)} still ${verdict.missing.length > 1 ? "need" : "needs"} a defrag; leave the leader (${leaderNow}) for last.`;
      return fail(
        verdict.done.length
          ? `Defragmented so far: ${names(verdict.done)}. ${rest}`
          : `No member was defragmented online yet: ${rest}`,
      );
    }
    case "ok":
      break;
  }
  for (const x of status.members) {
    if (!x.reachable) return fail(`${x.name} is not answering: start it so that its file can be measured.`);
    if (!compactEnough(x)) {
      return fail(
        `${x.name}'s file is still ${notInUsePercent(x)} % not in use (${sizeLine(x)}): defragment it${verdict.round.some((d) => d.member === x.name) ? " again, now that the history is compacted" : ""}.`,
      );
    }
  }
  const round = verdict.round;
  const last = round.at(-1);
  const leaderLast =
    last && leaderAt(ctx.events, last.start, status.leader) === last.member ? `, the leader ${last.member} last` : "";
  const files = status.members.map((x) => `${x.name} ${sizeText(x.dbSize)}`).join(", ");
  return pass(
    `One at a time, at least ${minGapMs / 1000} s apart: ${names(round)}${leaderLast}. Every file is now at most 1.5 × its data (${files}).`,
  );
}

/** followerEndpoints, leaderEndpoint, firstFollower: endpoints from `etcdctl endpoint status` (3.6 field 9: IS LEADER). */
const followerEndpoints = `$(etcdctl endpoint status | awk -F', ' '$9 == "false" {print $1}')`;
const leaderEndpoint = `$(etcdctl endpoint status | awk -F', ' '$9 == "true" {print $1}')`;
const firstFollower = `$(etcdctl endpoint status | awk -F', ' '$9 == "false" {print $1; exit}')`;

/** untilCaughtUp waits until member $M answers a health check (a linearizable read: it has caught up). */
const untilCaughtUp =
  'until ETCDCTL_ENDPOINTS=$(lab ep "$M") etcdctl endpoint health >/dev/null 2>&1; do sleep 0.5; done';

/** lab is lab 6: bloated db files, compaction, and defragmentation offline and online. */
export default defineLab({
  id: "06-compaction-and-defrag",
  title: "Disk space: compaction vs defragmentation",
  summary:
    "A churn of overwrites bloated every member's db file. Compact the history, measure the free pages, defragment one member offline and the others online, one at a time.",
  cluster: {
    members: 3,
    kube: true,
    // The apiserver's 5-minute compaction would compact the churn's history on its own: off, so task 1 is yours.
    controlPlane: { compactionIntervalMs: 0 },
  },
  params: {
    MEMBER: { kind: "member" },
    OFFLINE: { kind: "member" },
    CHURN_WRITES: { kind: "int", min: 1500, max: 2100 },
  },
  setup,
  tasks: [
    {
      id: "compact-history",
      title: "Compact the history",
      goal: "Compact the key-value history up to the current revision (at least {{CHURN_REV}}, where the churn ended).",
      check: checkCompacted,
      hints: [
        "Every write of the churn is a revision that etcd keeps until the history is compacted. `etcdctl endpoint status -w json` shows the current revision in `header.revision`.",
        "`etcdctl compact <revision>` forgets every version older than <revision> except each key's latest; `--physical` waits until they are gone from the file.",
        "etcdctl compact --physical \"$(etcdctl endpoint status -w json | jq '.[0].Status.header.revision')\"",
      ],
      solution: [
        "REV=$(etcdctl endpoint status -w json | jq '.[0].Status.header.revision')",
        'etcdctl compact --physical "$REV"',
        // bbolt counts a freed page as free once no reader holds it any more: IN USE falls within a second or so.
        "until etcdctl endpoint status -w json | jq -e 'all(.[].Status; .dbSizeInUse * 2 < .dbSize)' >/dev/null; do sleep 0.5; done",
      ],
    },
    {
      id: "reclaimable-bytes",
      title: "Measure what a defrag would give back",
      goal: "Write to `~/answers/reclaimable-bytes` how many bytes defragmenting **{{MEMBER}}** would give back now: its DB SIZE minus IN USE, in bytes.",
      check: checkReclaimAnswer,
      hints: [
        "`etcdctl endpoint status -w table` shows DB SIZE (the file) and IN USE (the pages holding data), rounded. What a defrag gives back is the difference.",
        "For exact bytes, read the member's metrics: `curl -s $(lab metrics $(lab param MEMBER))/metrics | grep ^etcd_mvcc_db_total_size`. Prometheus prints large numbers as floats: 4.1340928e+07 is 41340928.",
        "awk can subtract them: `awk '/^etcd_mvcc_db_total_size_in_bytes /{t=$2} /^etcd_mvcc_db_total_size_in_use_in_bytes /{u=$2} END{printf \"%d\\n\", t-u}'`.",
      ],
      solution: [
        "M=$(lab param MEMBER)",
        "mkdir -p ~/answers",
        `curl -s "$(lab metrics "$M")/metrics" | awk '/^etcd_mvcc_db_total_size_in_bytes /{t=$2} /^etcd_mvcc_db_total_size_in_use_in_bytes /{u=$2} END{printf "%d\\n", t-u}' > ~/answers/reclaimable-bytes`,
      ],
    },
    {
      id: "offline-defrag",
      title: "Defragment a stopped member with etcdutl",
      goal: "Stop **{{OFFLINE}}**, defragment its data directory with `etcdutl defrag --data-dir`, and start it again: the same member, a smaller file, caught up with the leader.",
      check: checkOfflineDefrag,
      hints: [
        "`lab stop <member>` stops it as `systemctl stop etcd` would; `lab datadir <member>` prints its data directory. `lab param OFFLINE` names the member.",
        '`etcdutl defrag --data-dir "$(lab datadir <member>)"` rewrites member/snap/db in place. On a running member it waits for etcd to release the file\'s lock.',
        "`lab start <member>`, then `ETCDCTL_ENDPOINTS=$(lab ep <member>) etcdctl endpoint health` until it is healthy again.",
      ],
      solution: [
        "M=$(lab param OFFLINE)",
        'lab stop "$M"',
        // Real etcd 3.4 (the reference backend) has no etcdutl yet: its offline defrag is etcdctl defrag --data-dir.
        'if etcd --version | grep -q "Version: 3.4"; then /usr/bin/etcdctl defrag --data-dir "$(lab datadir "$M")"; else etcdutl defrag --data-dir "$(lab datadir "$M")"; fi',
        'lab start "$M"',
        untilCaughtUp,
      ],
    },
    {
      id: "online-defrag",
      title: "Defragment online, one member at a time",
      goal: "Defragment the members online with `etcdctl defrag`, one at a time: followers first, the leader last, at least 5 s apart, until every member's DB SIZE is at most 1.5 × its IN USE.",
      check: checkOnlineRound,
      hints: [
        "With ETCDCTL_ENDPOINTS listing all three members, a plain `etcdctl defrag` does all of them back to back, as `--cluster` does. Aim at one: `ETCDCTL_ENDPOINTS=$(lab ep m1) etcdctl defrag`.",
        "`etcdctl endpoint status` marks the leader: IS LEADER, field 9 of the simple output. Do the others first.",
        "Between two members: `sleep 5; etcdctl endpoint health`. A loop over the followers' endpoints, then the leader's, does the round.",
      ],
      solution: [
        `for ep in ${followerEndpoints} ${leaderEndpoint}; do ETCDCTL_ENDPOINTS=$ep etcdctl defrag; sleep 6; etcdctl endpoint health; done`,
      ],
      antiSolutions: [
        {
          name: "all-at-once",
          commands: [
            "for ep in $(echo \"$ETCDCTL_ENDPOINTS\" | tr , ' '); do ETCDCTL_ENDPOINTS=$ep etcdctl defrag & done; wait",
          ],
          message: "overlapped|ended only .* before",
        },
        {
          // Sequential, as etcdctl defrag with every endpoint is: no pause, no health check. Each member's log is
          // read on its own, so defrags milliseconds apart may also be judged as overlapping: both say what is wrong.
          name: "back-to-back",
          commands: ["etcdctl defrag --cluster"],
          message: "ended only .* before|overlapped",
        },
        {
          name: "leader-first",
          commands: [
            `ETCDCTL_ENDPOINTS=${leaderEndpoint} etcdctl defrag`,
            "sleep 6",
            `ETCDCTL_ENDPOINTS=${firstFollower} etcdctl defrag`,
          ],
          message: "was the leader when you defragmented it",
        },
      ],
    },
  ],
});
