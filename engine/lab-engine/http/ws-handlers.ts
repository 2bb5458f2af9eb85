// The two WebSockets of API.md §4: /ws/terminal (a shell's bytes both ways, resize, scrollback replay,
// backpressure) and /ws/cluster (status samples, events, task results of one session).
import type { WebSocket } from "ws";
import type { LabSession } from "../session/session.ts";
import type { ClusterMessage } from "../types/api-types.ts";
import { inputBytesMax } from "../terminal/terminal.ts";

/** statusDropBytes: a cluster client this far behind skips status samples (events are never skipped). */
export const statusDropBytes = 1024 * 1024;
const pingEveryMs = 30_000;

function keepAlive(ws: WebSocket): () => void {
  let alive = true;
  ws.on("pong", () => (alive = true));
  const timer = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, pingEveryMs);
  return () => clearInterval(timer);
}

function size(v: string | null, fallback: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 500 ? n : fallback;
}

/** attachTerminal serves /ws/terminal?session=&terminal=&cols=&rows= for one session. */
export function attachTerminal(ws: WebSocket, session: LabSession, query: URLSearchParams): void {
  const id = query.get("terminal") || "main";
  if (!/^[a-z0-9-]{1,32}$/.test(id)) {
    ws.close(4400, "terminal: expected [a-z0-9-]{1,32}");
    return;
  }
  const cols = size(query.get("cols"), 80);
  const rows = size(query.get("rows"), 24);
  let opened;
  try {
    opened = session.openTerminal(id, { cols, rows });
  } catch (err) {
    ws.close(4409, String((err as Error).message).slice(0, 120));
    return;
  }
  const { terminal, created } = opened;
  if (!created && (query.has("cols") || query.has("rows"))) terminal.resize(cols, rows);
  const stopPing = keepAlive(ws);
  const detach = terminal.attach(
    {
      output: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
      control: (msg) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify(msg));
        if (msg["type"] === "exit") ws.close(1000, "shell exited");
      },
      bufferedBytes: () => ws.bufferedAmount,
    },
    created,
  );
  ws.on("message", (data, isBinary) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (buf.length > inputBytesMax) return ws.close(1009, `message over ${inputBytesMax} bytes`);
    if (isBinary) {
      session.touch(); // typing is activity: an idle session is reaped after --idle-timeout
      return terminal.write(buf);
    }
    let msg: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
    try {
      msg = JSON.parse(buf.toString("utf8")) as typeof msg;
    } catch {
      return;
    }
    if (msg.type === "input" && typeof msg.data === "string") {
      session.touch();
      terminal.write(msg.data);
    } else if (msg.type === "resize" && typeof msg.cols === "number" && typeof msg.rows === "number")
      terminal.resize(msg.cols, msg.rows);
  });
  ws.on("close", () => {
    stopPing();
    detach();
  });
}

/** attachCluster serves /ws/cluster?session= for one session. */
export function attachCluster(ws: WebSocket, session: LabSession): void {
  const stopPing = keepAlive(ws);
  const send = (m: ClusterMessage): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (m.type === "status" && ws.bufferedAmount > statusDropBytes) return;
    ws.send(JSON.stringify(m));
    if (m.type === "session" && m.session.state === "destroyed") ws.close(1000, "session destroyed");
  };
  const unsubscribe = session.subscribe(send);
  ws.on("message", (data) => {
    try {
      const msg = JSON.parse(String(data)) as { type?: unknown };
      if (msg.type === "ping") send({ type: "pong" });
    } catch {
      // ignore
    }
  });
  ws.on("close", () => {
    stopPing();
    unsubscribe();
  });
}
