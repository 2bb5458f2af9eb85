// The simulator's replicated state machine: a hash chain over the applied entries. Two nodes that applied
// the same entries in the same order have the same (index, hash); its snapshot is those two numbers.

import { EntryType, type Entry } from "../raftpb.ts";

/** MachineState is what a node applied: up to `index`, summarized by `hash`. */
export interface MachineState {
  index: number;
  hash: number;
}

/** applyEntry returns the state after applying e (FNV-1a over the previous hash, the type and the data). */
export function applyEntry(s: MachineState, e: Entry): MachineState {
  let h = s.hash ^ 0x811c9dc5;
  h = Math.imul(h ^ e.type, 0x01000193) >>> 0;
  for (let i = 0; i < e.data.length; i++) h = Math.imul(h ^ e.data[i]!, 0x01000193) >>> 0;
  return { index: e.index, hash: h };
}

/** encodeMachine serializes a state as snapshot data (two little-endian float64s). */
export function encodeMachine(s: MachineState): Uint8Array {
  const b = new Uint8Array(16);
  const v = new DataView(b.buffer);
  v.setFloat64(0, s.index, true);
  v.setFloat64(8, s.hash, true);
  return b;
}

/** decodeMachine reads snapshot data back (an empty snapshot is the initial state). */
export function decodeMachine(data: Uint8Array, index: number): MachineState {
  if (data.length !== 16) return { index, hash: 0 };
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return { index: v.getFloat64(0, true), hash: v.getFloat64(8, true) };
}

/** entryKey identifies an entry's content for the checker ("" for the leader's empty entry). */
export function entryKey(e: Entry): string {
  if (e.data.length === 0) return e.type === EntryType.Normal ? "" : `t${e.type}`;
  return `${e.type}:${String.fromCharCode(...e.data)}`;
}
