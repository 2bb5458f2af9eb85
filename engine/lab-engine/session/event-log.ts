// A session's event log: numbered, stamped events appended to <workspace>/events.jsonl (one JSON object per
// line) and kept in memory (bounded) for checks and the status stream's subscribers.
import { appendFileSync, readFileSync } from "node:fs";
import type { LabEvent, LabEventBody } from "../types/event-types.ts";

/** eventsInMemoryMax bounds the in-memory tail; older events stay in events.jsonl. */
export const eventsInMemoryMax = 10_000;

/** EventLog appends events and notifies subscribers. */
export class EventLog {
  private events: LabEvent[] = [];
  private seq = 0;
  private readonly listeners = new Set<(e: LabEvent) => void>();

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** append stamps an event with the next seq and the time, writes it to the file and tells subscribers. */
  append(body: LabEventBody): LabEvent {
    const event = { ...body, seq: ++this.seq, at: this.now() } as LabEvent;
    appendFileSync(this.file, JSON.stringify(event) + "\n");
    this.events.push(event);
    if (this.events.length > eventsInMemoryMax) this.events.splice(0, this.events.length - eventsInMemoryMax);
    for (const l of this.listeners) l(event);
    return event;
  }

  /** all returns the events kept in memory (the last eventsInMemoryMax), oldest first. */
  all(): readonly LabEvent[] {
    return this.events.slice();
  }

  /** after returns up to `limit` events with seq > `seq`. */
  after(seq: number, limit = 1000): LabEvent[] {
    const i = this.events.findIndex((e) => e.seq > seq);
    return i < 0 ? [] : this.events.slice(i, i + limit);
  }

  /** subscribe calls `listener` for every new event until the returned function is called. */
  subscribe(listener: (e: LabEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** lastSeq is the seq of the newest event (0 when empty). */
  get lastSeq(): number {
    return this.seq;
  }
}

/** readEventFile parses an events.jsonl file (as written by EventLog), skipping a torn last line. */
export function readEventFile(file: string): LabEvent[] {
  const out: LabEvent[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as LabEvent);
    } catch {
      // a line cut short by a crash
    }
  }
  return out;
}
