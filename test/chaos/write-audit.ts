// The write audit: the store's own history of the run's keys (every event from a watch, revision by revision)
// against the writes the clients sent. Every acknowledged write must be there at the revision it was
// acknowledged with (no lost writes); every event must come from a write some client sent, once (no
// phantom or duplicated writes); every revision of the run must hold exactly one event (each write touches
// one key). Unknown-outcome writes that show up are counted as resolved.
import type { KvBranch, KvOperation } from "../../engine/store/lincheck/index.ts";

/** StoreEvent is one event of the store's history. */
export interface StoreEvent {
  revision: number;
  key: string;
  /** value of a put; undefined for a delete. */
  value: string | undefined;
}

/** WriteAudit is the result; `problems` is empty when everything holds. */
export interface WriteAudit {
  acknowledged: number;
  resolvedUnknown: number;
  problems: string[];
}

type Effect = { key: string; value: string | undefined };

/** effectOf is what a write would do to the store when applied (undefined: nothing, e.g. a txn that reads). */
function expectedEffect(op: KvOperation): Effect | "none" | "unknown" {
  const i = op.input;
  const out = op.output;
  switch (i.kind) {
    case "get":
    case "range":
      return "none";
    case "put":
      return { key: i.key, value: i.value };
    case "delete":
      if (!out) return "unknown";
      return out.deleted === 1 ? { key: i.key, value: undefined } : "none";
    case "txn": {
      if (!out) return "unknown";
      const b: KvBranch = out.succeeded ? i.then : i.otherwise;
      if (b.kind === "put") return { key: i.key, value: b.value };
      if (b.kind === "get") return "none";
      // A delete branch: the revision says whether it deleted something.
      return "unknown";
    }
  }
}

/** auditWrites checks the store's events in (fromRevision, toRevision] against the history. */
export function auditWrites(
  ops: readonly KvOperation[],
  events: readonly StoreEvent[],
  fromRevision: number,
  toRevision: number,
): WriteAudit {
  const problems: string[] = [];
  const byRevision = new Map<number, StoreEvent[]>();
  for (const e of events) byRevision.set(e.revision, [...(byRevision.get(e.revision) ?? []), e]);
  for (let r = fromRevision + 1; r <= toRevision; r++) {
    const n = byRevision.get(r)?.length ?? 0;
    if (n !== 1) problems.push(`revision ${r} holds ${n} events (each write changes one key: want 1)`);
  }
  // Values are unique per run: a put event names the operation that wrote it.
  const putOf = new Map<string, KvOperation>();
  for (const op of ops) {
    const i = op.input;
    if (i.kind === "put") putOf.set(i.value, op);
    if (i.kind === "txn" && i.then.kind === "put") putOf.set(i.then.value, op);
  }
  const seenValues = new Set<string>();
  let resolvedUnknown = 0;
  for (const e of events) {
    if (e.value === undefined) continue;
    if (seenValues.has(e.value))
      problems.push(`value ${JSON.stringify(e.value)} was written twice (again at revision ${e.revision})`);
    seenValues.add(e.value);
    const op = putOf.get(e.value);
    if (!op)
      problems.push(
        `revision ${e.revision}: ${e.key}=${JSON.stringify(e.value)} was written by no client (a phantom write)`,
      );
    else if (op.output === undefined) resolvedUnknown++;
  }
  let acknowledged = 0;
  for (const op of ops) {
    if (op.output === undefined) continue;
    const eff = expectedEffect(op);
    const rev = op.output.revision;
    const at = byRevision.get(rev) ?? [];
    if (eff === "none") continue;
    acknowledged++;
    if (eff === "unknown") {
      // A txn's delete branch: if it made a revision, that revision is a delete of its key.
      continue;
    }
    const hit = at.find((e) => e.key === eff.key && e.value === eff.value);
    if (!hit) {
      const what = eff.value === undefined ? `delete ${eff.key}` : `${eff.key}=${JSON.stringify(eff.value)}`;
      problems.push(
        `lost acknowledged write: ${what} acknowledged at revision ${rev}, the store has ` +
          (at.length ? at.map((e) => `${e.key}=${JSON.stringify(e.value ?? "(deleted)")}`).join(", ") : "nothing") +
          " there",
      );
    }
  }
  return { acknowledged, resolvedUnknown, problems };
}
