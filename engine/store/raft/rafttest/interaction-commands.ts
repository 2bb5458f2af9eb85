// The commands of the scripted Raft tests. Each one acts on the InteractionEnv and prints what happened.
//
//   add-nodes N [voters=(1,2,3)] [learners=(4)] [index=10] [prevote=false] [checkquorum=false]
//             [inflight=N] [max-size-per-msg=N] [max-uncommitted-size=N] [step-down-on-removal=false]
//             [election-ticks=3] [content=x]
//   campaign N | propose N data | propose-conf-change N add=4|add-learner=4|remove=2|update=3
//   process-ready N... | deliver-msgs N... [drop=(N,...)] [type=MsgApp] | stabilize [N...]
//   tick-election N | tick-heartbeat N | tick N [count=5]
//   compact N index | restart N | transfer-leadership from=1 to=2 | read-index N ctx
//   forget-leader N | report-unreachable N id | report-snapshot N id [ok=false]
//   isolate N | cut from=1 to=2 | heal | raft-log N | raft-state | status N | log-level LEVEL

import { EMPTY_BYTES } from "../empty.ts";
import type { RaftLogLevel } from "../logger.ts";
import { ConfChangeType, MessageType, type LogIndex, type NodeId } from "../raftpb.ts";
import type { CommandArg, ScriptCommand } from "./datadriven.ts";
import type { InteractionEnv } from "./interaction-env.ts";

function positional(args: readonly CommandArg[]): number[] {
  return args.filter((a) => a.values.length === 0 && /^\d+$/.test(a.key)).map((a) => Number(a.key));
}

function named(args: readonly CommandArg[], key: string): string[] | undefined {
  return args.find((a) => a.key === key)?.values;
}

function namedNum(args: readonly CommandArg[], key: string): number | undefined {
  const v = named(args, key);
  return v === undefined ? undefined : Number(v[0]);
}

function namedBool(args: readonly CommandArg[], key: string): boolean | undefined {
  const v = named(args, key);
  return v === undefined ? undefined : v[0] === "true";
}

function first(args: readonly CommandArg[], what: string): number {
  const p = positional(args);
  if (p.length === 0) throw new Error(`missing ${what}`);
  return p[0]!;
}

function bytes(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

const logLevels = new Set(["debug", "info", "warn", "error", "none"]);

/** runCommand executes one script command against env. Throws on a malformed command. */
export function runCommand(env: InteractionEnv, cmd: ScriptCommand): void {
  const a = cmd.args;
  const all = (): number[] => (positional(a).length > 0 ? positional(a) : env.nodes.map((_, i) => i + 1));
  switch (cmd.name) {
    case "add-nodes": {
      const voters = (named(a, "voters") ?? []).map((v) => BigInt(v) as NodeId);
      const learners = (named(a, "learners") ?? []).map((v) => BigInt(v) as NodeId);
      const base = {
        electionTicks: namedNum(a, "election-ticks") ?? 3,
        heartbeatTicks: 1,
        preVote: namedBool(a, "prevote") ?? true,
        checkQuorum: namedBool(a, "checkquorum") ?? true,
        maxInflightMsgs: namedNum(a, "inflight") ?? 256,
        maxSizePerMsgBytes: namedNum(a, "max-size-per-msg") ?? Number.MAX_SAFE_INTEGER,
        maxUncommittedEntriesSizeBytes: namedNum(a, "max-uncommitted-size") ?? 0,
        stepDownOnRemoval: namedBool(a, "step-down-on-removal") ?? true,
      };
      const cs = { voters, learners, votersOutgoing: [], learnersNext: [], autoLeave: false };
      env.addNodes(first(a, "node count"), cs, namedNum(a, "index") ?? 1, base, named(a, "content")?.[0] ?? "");
      return;
    }
    case "campaign":
      env.node(first(a, "node")).rn.campaign();
      return;
    case "propose": {
      const data = a[1]?.key ?? "";
      env.proposeResult(env.node(first(a, "node")).rn.propose(bytes(data)));
      return;
    }
    case "propose-conf-change": {
      const cc = confChangeFromArgs(a);
      env.proposeResult(env.node(first(a, "node")).rn.proposeConfChange({ ...cc, context: EMPTY_BYTES, id: 0n }));
      return;
    }
    case "process-ready": {
      const ids = positional(a);
      for (const id of ids) {
        if (ids.length > 1) {
          env.print(`> ${id} handling Ready`);
          env.withIndent(() => env.processReady(id));
        } else {
          env.processReady(id);
        }
      }
      return;
    }
    case "deliver-msgs": {
      const typeName = named(a, "type")?.[0];
      const type =
        typeName === undefined ? undefined : (MessageType[typeName as keyof typeof MessageType] as MessageType);
      if (typeName !== undefined && type === undefined) throw new Error(`unknown message type ${typeName}`);
      let n = 0;
      for (const id of positional(a)) n += env.deliver(id, false, type);
      for (const d of named(a, "drop") ?? []) n += env.deliver(Number(d), true, type);
      if (n === 0) env.print("no messages");
      return;
    }
    case "stabilize":
      env.stabilize(all());
      return;
    case "tick-election":
    case "tick-heartbeat":
    case "tick": {
      const n = env.node(first(a, "node"));
      const count =
        cmd.name === "tick-election"
          ? (n.config.electionTicks ?? 10)
          : cmd.name === "tick-heartbeat"
            ? (n.config.heartbeatTicks ?? 1)
            : (namedNum(a, "count") ?? 1);
      for (let i = 0; i < count; i++) n.rn.tick();
      return;
    }
    case "compact": {
      const [id, index] = positional(a);
      if (id === undefined || index === undefined) throw new Error("compact N index");
      const n = env.node(id);
      if (index > n.applied) throw new Error(`cannot compact node ${id} to ${index}: applied only to ${n.applied}`);
      n.storage.createSnapshot(index as LogIndex, n.confState, bytes(`snap@${index}`));
      n.storage.compact(index as LogIndex);
      env.describeLog(id);
      return;
    }
    case "restart":
      env.restart(first(a, "node"));
      return;
    case "transfer-leadership": {
      const from = namedNum(a, "from");
      const to = namedNum(a, "to");
      if (from === undefined || to === undefined) throw new Error("transfer-leadership from=N to=M");
      env.node(from).rn.transferLeader(BigInt(to) as NodeId);
      return;
    }
    case "read-index": {
      const err = env.node(first(a, "node")).rn.readIndex(bytes(a[1]?.key ?? ""));
      if (err) env.print(`error: ${err.message} (${err.reason})`);
      return;
    }
    case "forget-leader":
      env.node(first(a, "node")).rn.forgetLeader();
      return;
    case "report-unreachable": {
      const [id, peer] = positional(a);
      env.node(id!).rn.reportUnreachable(BigInt(peer!) as NodeId);
      return;
    }
    case "report-snapshot": {
      const [id, peer] = positional(a);
      env.node(id!).rn.reportSnapshot(BigInt(peer!) as NodeId, namedBool(a, "ok") ?? true);
      return;
    }
    case "isolate": {
      const id = first(a, "node");
      for (let k = 1; k <= env.nodes.length; k++) {
        if (k === id) continue;
        env.blocked.add(`${id}->${k}`);
        env.blocked.add(`${k}->${id}`);
      }
      return;
    }
    case "cut": {
      const from = namedNum(a, "from");
      const to = namedNum(a, "to");
      if (from === undefined || to === undefined) throw new Error("cut from=N to=M");
      env.blocked.add(`${from}->${to}`);
      return;
    }
    case "heal":
      env.blocked.clear();
      return;
    case "raft-log":
      env.describeLog(first(a, "node"));
      return;
    case "raft-state":
      env.describeState();
      return;
    case "status":
      env.describeProgress(first(a, "node"));
      return;
    case "log-level": {
      const level = a[0]?.key ?? "";
      if (!logLevels.has(level)) throw new Error(`unknown log level ${level}`);
      env.logLevel = level as RaftLogLevel | "none";
      return;
    }
    default:
      throw new Error(`unknown command ${cmd.name}`);
  }
}

/** confChangeFromArgs reads add=4 / add-learner=4 / remove=2 / update=3 into a ConfChange. */
function confChangeFromArgs(args: readonly CommandArg[]): { type: ConfChangeType; nodeId: NodeId } {
  for (const a of args) {
    const id = BigInt(a.values[0] ?? "0") as NodeId;
    if (a.key === "add") return { type: ConfChangeType.ConfChangeAddNode, nodeId: id };
    if (a.key === "add-learner") return { type: ConfChangeType.ConfChangeAddLearnerNode, nodeId: id };
    if (a.key === "remove") return { type: ConfChangeType.ConfChangeRemoveNode, nodeId: id };
    if (a.key === "update") return { type: ConfChangeType.ConfChangeUpdateNode, nodeId: id };
  }
  throw new Error("propose-conf-change needs add=N, add-learner=N, remove=N or update=N");
}
