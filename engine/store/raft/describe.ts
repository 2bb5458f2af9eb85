// One-line text forms of Raft values, for the scripted tests, simulator traces and debugging. The forms
// are ours (stable, greppable); they are the vocabulary of engine/store/raft/testdata/*.txt.

import { decodeConfChange } from "./confchange-codec.ts";
import { hex } from "./logger.ts";
import { describeConfChange } from "./membership.ts";
import {
  EntryType,
  MessageType,
  NONE,
  type ConfState,
  type Entry,
  type HardState,
  type Message,
  type NodeId,
  type Snapshot,
} from "./raftpb.ts";
import type { Ready } from "./ready.ts";
import { stateName } from "./state.ts";

/** describeBytes shows printable ASCII quoted ("abc") and anything else as hex (0x0100…). */
export function describeBytes(b: Uint8Array): string {
  let printable = true;
  for (const c of b) if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) printable = false;
  if (printable) return `"${String.fromCharCode(...b)}"`;
  return "0x" + Array.from(b, (c) => c.toString(16).padStart(2, "0")).join("");
}

function ids(list: readonly NodeId[]): string {
  return `(${list.map(hex).join(" ")})`;
}

/** describeConfState: "voters=(1 2 3) learners=(4)". */
export function describeConfState(cs: ConfState): string {
  let s = `voters=${ids(cs.voters)}`;
  if (cs.learners.length > 0) s += ` learners=${ids(cs.learners)}`;
  return s;
}

/** describeEntry: "1/12 Normal "data"" or "1/3 ConfChange ConfChangeAddNode 4". */
export function describeEntry(e: Entry): string {
  const head = `${e.term}/${e.index}`;
  if (e.type === EntryType.ConfChange) {
    try {
      return `${head} ConfChange ${describeConfChange(decodeConfChange(e.data))}`;
    } catch (err) {
      return `${head} ConfChange <${String(err)}>`;
    }
  }
  return `${head} ${EntryType[e.type] ?? e.type} ${describeBytes(e.data)}`;
}

/** describeHardState: "term=2 vote=1 commit=12". */
export function describeHardState(hs: HardState): string {
  return `term=${hs.term} vote=${hex(hs.vote)} commit=${hs.commit}`;
}

/** describeSnapshot: "index=10 term=1 voters=(1 2 3)". */
export function describeSnapshot(s: Snapshot): string {
  return `index=${s.metadata.index} term=${s.metadata.term} ${describeConfState(s.metadata.confState)}`;
}

function target(id: NodeId): string {
  return id === NONE ? "none" : hex(id);
}

/** describeMessage: "1->2 MsgApp term=1 log=1/11 commit=11 entries=[1/12 Normal "x"]". */
export function describeMessage(m: Message): string {
  let s = `${target(m.from)}->${target(m.to)} ${MessageType[m.type] ?? m.type} term=${m.term} log=${m.logTerm}/${m.index}`;
  if (m.reject) s += ` rejected hint=${m.rejectHint}`;
  if (m.commit !== 0) s += ` commit=${m.commit}`;
  if (m.vote !== NONE) s += ` vote=${hex(m.vote)}`;
  if (m.entries.length > 0) s += ` entries=[${m.entries.map(describeEntry).join(", ")}]`;
  if (m.snapshot && m.snapshot.metadata.index !== 0) s += ` snapshot=[${describeSnapshot(m.snapshot)}]`;
  if (m.context.length > 0) s += ` ctx=${describeBytes(m.context)}`;
  return s;
}

/** describeReady lists a Ready one item per line (no trailing newline); "<empty Ready>" when empty. */
export function describeReady(rd: Ready): string {
  const lines: string[] = [];
  if (rd.softState) lines.push(`  soft lead=${hex(rd.softState.lead)} state=${stateName(rd.softState.raftState)}`);
  if (rd.hardState) lines.push(`  hard ${describeHardState(rd.hardState)}`);
  for (const rs of rd.readStates) lines.push(`  read-state index=${rs.index} ctx=${describeBytes(rs.requestCtx)}`);
  if (rd.snapshot) lines.push(`  snapshot ${describeSnapshot(rd.snapshot)}`);
  for (const e of rd.entries) lines.push(`  persist ${describeEntry(e)}`);
  for (const e of rd.committedEntries) lines.push(`  apply ${describeEntry(e)}`);
  for (const m of rd.messages) lines.push(`  send ${describeMessage(m)}`);
  if (lines.length === 0) return "<empty Ready>";
  return `Ready sync=${rd.mustSync}\n${lines.join("\n")}`;
}
