// Lab 2, "Raft and quorum": a 3-member cluster the learner breaks on purpose. Checks read the session's event
// log (leader changes, quorum lost/restored, controls) and the store; they never see keystrokes, so killing a
// member from the cluster panel, with `lab kill` or with plain `kill -9` all count. They avoid sampling the
// members (ctx.status) so that a check stays fast while members are down or still starting.
import { defineLab, type CheckContext, type CheckResult } from "../lab-format.ts";
import { clusterSize, currentLeader, lastQuorumOutage, leaderChange, leadersSince } from "./events.ts";

/** afterRecoveryKey is the key task 3 asks for, written once quorum is back. */
export const afterRecoveryKey = "/lab/after-recovery";

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });

async function checkLeaderChanged(ctx: CheckContext): Promise<CheckResult> {
  const change = leaderChange(ctx.events);
  if (change.kind === "changed") {
    return pass(`${change.from} led until it was taken down (${change.action}); ${change.to} won term ${change.term}.`);
  }
  if (change.kind === "waiting") {
    return fail(`${change.from} is down (${change.action}) and no new leader is elected yet: check again in a second.`);
  }
  const leader = currentLeader(ctx.events);
  if (!leader) return fail("The cluster has no leader right now: start members until it elects one.");
  return fail(
    `${leader} is still the leader. Kill it: its Actions menu in the cluster panel, or \`lab kill ${leader}\`.`,
  );
}

async function checkQuorum(ctx: CheckContext): Promise<CheckResult> {
  const outage = lastQuorumOutage(ctx.events);
  if (!outage) {
    const n = clusterSize(ctx.events) || 3;
    const needed = Math.floor(n / 2) + 1; // quorum: a strict majority
    return fail(
      `Quorum has not been lost yet: ${n} members need ${needed}, so take ${n - needed + 1} of them down at once.`,
    );
  }
  if (!outage.restored) {
    const { up, needed } = outage.lost;
    return fail(
      `Quorum is lost: ${up} member${up === 1 ? " is" : "s are"} up and ${needed} are needed. Start one again.`,
    );
  }
  const seconds = Math.max(1, Math.round((outage.restored.at - outage.lost.at) / 1000));
  return pass(`Quorum was lost and came back ${seconds} s later, once ${outage.restored.up} members were up again.`);
}

async function checkWriteAfterRecovery(ctx: CheckContext): Promise<CheckResult> {
  const outage = lastQuorumOutage(ctx.events);
  if (!outage?.restored) return fail("First lose quorum and restore it; then write the key.");
  const kv = await ctx.store.get(afterRecoveryKey);
  const leaders = leadersSince(ctx.events, outage.lost.seq);
  if (leaders.length === 0) {
    const status = await ctx.status();
    if (status.leader) leaders.push(status.leader);
  }
  const expected = leaders.join(" or ");
  if (kv === null)
    return fail(`Quorum is back. Now put ${afterRecoveryKey} with the leader's name (${hintOf(leaders)}).`);
  if (outage.lost.revision !== undefined && kv.modRevision <= outage.lost.revision) {
    return fail(`${afterRecoveryKey} was written before quorum was lost. Write it again now.`);
  }
  const value = kv.value.trim();
  if (leaders.includes(value)) {
    return pass(`Right: ${value} leads since quorum came back, and the write committed at revision ${kv.modRevision}.`);
  }
  return fail(
    `${afterRecoveryKey} holds "${value}", but the leader since quorum came back is ${expected || "unknown"}.`,
  );
}

function hintOf(leaders: readonly string[]): string {
  return leaders.length ? "look for IS LEADER true in endpoint status" : "the cluster has no leader yet";
}

/** leaderName is a shell snippet printing the current leader's name (endpoint status → member list). */
const leaderName =
  "etcdctl member list | awk -F', ' -v url=\"http://$(etcdctl endpoint status | awk -F', ' '$9 == \"true\" {print $1}')\" '$5 == url {print $3}'";

/** untilLeader waits until a running member says it is the leader (IS LEADER true in endpoint status). */
const untilLeader = ["until etcdctl endpoint status 2>/dev/null | grep -q ', true, '; do sleep 0.5; done"];

const loseAndRestoreQuorum = ["lab stop m1 m2", "sleep 2", "lab start m1 m2", ...untilLeader];

/** lab is lab 2: a 3-member cluster with its control plane, and three tasks graded from the event log. */
export default defineLab({
  id: "02-raft-and-quorum",
  title: "Raft and quorum",
  summary: "Kill followers, the leader and then a majority; watch elections, terms and writes that cannot commit.",
  cluster: { members: 3, kube: true, controlPlane: true },
  tasks: [
    {
      id: "leader-changed",
      title: "Kill the leader and let a new one win",
      goal: "Kill the member that is the leader, so that the cluster's event log shows another member elected leader.",
      check: checkLeaderChanged,
      hints: [
        "The leader wears the crown in the cluster panel (IS LEADER true in `etcdctl endpoint status`).",
        "Open the leader's Actions menu and choose Kill, or type `lab kill <name>` in the terminal.",
        "A new leader needs a majority of votes: with one member down, the other two still make two of three.",
      ],
      solution: [`LEADER=$(${leaderName})`, 'lab kill "$LEADER"', ...untilLeader, 'lab start "$LEADER"'],
    },
    {
      id: "quorum-lost-and-restored",
      title: "Lose quorum, then restore it",
      goal: "Take down enough members that the cluster loses quorum, then bring enough back that it regains it.",
      check: checkQuorum,
      hints: [
        "Three members need two for a quorum. How many can be down at once before writes stop?",
        "Stop or kill two members. Try a put: it waits, then fails with `context deadline exceeded`.",
        "Start one of them again: two of three is a quorum, and a leader is elected within a second or two.",
      ],
      solution: loseAndRestoreQuorum,
    },
    {
      id: "write-after-recovery",
      title: "After recovery, write the new leader's name",
      goal: `After quorum is back, put the name of the current leader (m1, m2 or m3) into the key \`${afterRecoveryKey}\`.`,
      check: checkWriteAfterRecovery,
      hints: [
        `Once quorum is back, writes commit again. Put ${afterRecoveryKey} with the leader's name as its value.`,
        "`etcdctl endpoint status` marks the leader (IS LEADER true); `etcdctl member list` maps its endpoint to a name.",
        "Or read the name off the crown in the cluster panel, then: etcdctl put /lab/after-recovery <name>",
      ],
      solution: [...loseAndRestoreQuorum, `etcdctl put ${afterRecoveryKey} "$(${leaderName})"`],
    },
  ],
});
