// Network faults as data: which peers each member drops. A partition of arbitrary groups means every member
// drops, in both directions, every member outside its own group; members no group names form one more
// group. The engine keeps this desired state and re-applies it to a member after it restarts.
import type { MemberFaults } from "../types/status-types.ts";
import { noFaults } from "../types/status-types.ts";

/** PartitionError is a malformed partition request; its message is for people. */
export class PartitionError extends Error {
  override name = "PartitionError";
}

/** normalizeGroups validates `groups` against the member names and adds the group of unnamed members. */
export function normalizeGroups(members: readonly string[], groups: readonly (readonly string[])[]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const g of groups) {
    if (g.length === 0) continue;
    for (const m of g) {
      if (!members.includes(m)) throw new PartitionError(`unknown member "${m}" (members: ${members.join(", ")})`);
      if (seen.has(m)) throw new PartitionError(`member "${m}" is in more than one group`);
      seen.add(m);
    }
    out.push([...g]);
  }
  const rest = members.filter((m) => !seen.has(m));
  if (rest.length) out.push(rest);
  if (out.length < 2) throw new PartitionError("a partition needs at least two groups");
  return out;
}

/** partitionFaults returns each member's drop sets for a partition, keeping delays and fsync delays of `current`. */
export function partitionFaults(
  members: readonly string[],
  groups: readonly (readonly string[])[],
  current: ReadonlyMap<string, MemberFaults> = new Map(),
): Map<string, MemberFaults> {
  const norm = normalizeGroups(members, groups);
  const out = new Map<string, MemberFaults>();
  for (const g of norm) {
    const outside = members.filter((m) => !g.includes(m));
    for (const m of g) {
      const prev = current.get(m) ?? noFaults();
      out.set(m, { ...prev, dropIn: [...outside], dropOut: [...outside] });
    }
  }
  return out;
}

/** healedFaults clears drops and delays, keeping each member's fsync delay (slow disk is not network). */
export function healedFaults(current: ReadonlyMap<string, MemberFaults>): Map<string, MemberFaults> {
  const out = new Map<string, MemberFaults>();
  for (const [m, f] of current) out.set(m, { ...noFaults(), fsyncDelayMs: f.fsyncDelayMs });
  return out;
}

/** groupsOf describes the current partition as groups of members that can talk to each other both ways. */
export function groupsOf(members: readonly string[], faults: ReadonlyMap<string, MemberFaults>): string[][] {
  const groups: string[][] = [];
  const placed = new Set<string>();
  for (const m of members) {
    if (placed.has(m)) continue;
    const dropped = new Set([...(faults.get(m)?.dropIn ?? []), ...(faults.get(m)?.dropOut ?? [])]);
    const g = members.filter((o) => !placed.has(o) && (o === m || !dropped.has(o)));
    for (const o of g) placed.add(o);
    groups.push(g);
  }
  return groups;
}
