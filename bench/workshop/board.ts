// The instructor's side of the workshop bench (workshop mode only, engine/lab-engine/http/API.md §7): an event
// for the bench's labs, and the board's WebSocket watched as the board page watches it, recording when each
// learner's tasks-passed count first reached each value.
import WebSocket from "ws";
import type { LabServerProcess } from "./server-process.ts";

interface BoardRow {
  name: string;
  tasksPassed: number;
}

/** Board is an open event and its board stream. */
export class Board {
  /** reachedAt maps a learner's name to when (Date.now()) the board first showed k tasks passed, at index k-1. */
  readonly reachedAt = new Map<string, number[]>();
  pushes = 0;

  private constructor(
    readonly accessCode: string,
    private readonly ws: WebSocket,
  ) {
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type?: string; board?: { learners?: BoardRow[] } };
      if (m.type !== "board") return;
      this.pushes++;
      const now = Date.now();
      for (const row of m.board?.learners ?? []) {
        const seen = this.reachedAt.get(row.name) ?? [];
        while (seen.length < row.tasksPassed) seen.push(now);
        this.reachedAt.set(row.name, seen);
      }
    });
  }

  /** open creates an event with `lessons` (open now, ending in a day) and attaches to its board. */
  static async open(server: LabServerProcess, lessons: string[]): Promise<Board> {
    const auth = { authorization: `Bearer ${server.adminToken}` };
    const res = await fetch(`${server.url}/api/workshop/events`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        name: "workshop bench",
        lessons,
        endsAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
      }),
    });
    const body = (await res.json()) as { event?: { id: string; accessCode: string } };
    if (res.status !== 201 || !body.event)
      throw new Error(`POST /api/workshop/events: ${res.status} ${JSON.stringify(body)}`);
    const { id, accessCode } = body.event;
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const w = new WebSocket(
        `${server.url.replace(/^http/, "ws")}/ws/workshop/board?event=${encodeURIComponent(id)}`,
        {
          headers: auth,
        },
      );
      w.once("open", () => resolve(w));
      w.once("unexpected-response", (_q, r) => reject(new Error(`/ws/workshop/board refused: ${r.statusCode}`)));
      w.once("error", reject);
    });
    return new Board(accessCode, ws);
  }

  /**
   * latencies pairs each task a learner passed (the server's passedAt, ms since the epoch) with when the board
   * first showed that many passed: ms from the pass to the push. A pass the board never showed is left out and
   * counted in `missing`.
   */
  latencies(passed: Map<string, number[]>): { ms: number[]; missing: number } {
    const ms: number[] = [];
    let missing = 0;
    for (const [name, times] of passed) {
      const shown = this.reachedAt.get(name) ?? [];
      [...times]
        .sort((a, b) => a - b)
        .forEach((at, k) => {
          const s = shown[k];
          if (s === undefined) missing++;
          else ms.push(Math.max(0, s - at));
        });
    }
    return { ms, missing };
  }

  /** close detaches from the board. */
  close(): void {
    this.ws.close();
  }
}
