// The two WebSockets of API.md §4: /ws/terminal (a shell's bytes both ways, resize, scrollback replay,
// backpressure) and /ws/cluster (status samples, events, task results of one session).
import type { RawData, WebSocket } from "ws";
import type { LabSession } from "../session/session.ts";
import type { ClusterMessage } from "../types/api-types.ts";
import { inputBytesMax } from "../terminal/terminal.ts";
import { closeWith, frameObject } from "../web/ws-guard.ts";

/** statusDropBytes: a cluster client this far behind skips status samples (events are never skipped). */
export const statusDropBytes = 1024 * 1024;

function size(v: string | null, fallback: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 500 ? n : fallback;
}

/** attachTerminal serves /ws/terminal?session=&terminal=&cols=&rows= for one session. */
export function attachTerminal(ws: WebSocket, session: LabSession, query: URLSearchParams): void {
  const id = query.get("terminal") || "main";
  if (!/^[a-z0-9-]{1,32}$/.test(id)) {
    closeWith(ws, 4400, "terminal: expected [a-z0-9-]{1,32}");
    return;
  }
  const cols = size(query.get("cols"), 80);
  const rows = size(query.get("rows"), 24);
  let opened;
  try {
    opened = session.openTerminal(id, { cols, rows });
  } catch (err) {
    closeWith(ws, 4409, String((err as Error).message));
    return;
  }
  const { terminal, created } = opened;
  if (!created && (query.has("cols") || query.has("rows"))) terminal.resize(cols, rows);
  const detach = terminal.attach(
    {
      output: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
      control: (msg) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify(msg));
        if (msg["type"] === "exit") closeWith(ws, 1000, "shell exited");
      },
      bufferedBytes: () => ws.bufferedAmount,
      inputDrained: () => ws.resume(),
    },
    created,
  );
  ws.on("message", (data, isBinary) => {
    const buf = toBuffer(data);
    if (buf.length > inputBytesMax) return closeWith(ws, 1009, `message over ${inputBytesMax} bytes`);
    // Input is paced (terminal/input-pacer.ts): while the shell's queue is full this socket is not read.
    // Typing is activity: an idle session is reaped after --idle-timeout.
    const take = (data: string | Buffer): void => {
      session.touch();
      if (!terminal.write(data)) ws.pause();
    };
    if (isBinary) return take(buf);
    const msg = frameObject(buf);
    if (!msg) return;
    if (msg.type === "input" && typeof msg.data === "string") take(msg.data);
    else if (msg.type === "resize" && typeof msg.cols === "number" && typeof msg.rows === "number")
      terminal.resize(msg.cols, msg.rows);
  });
  ws.on("close", detach);
}

/** attachCluster serves /ws/cluster?session= for one session. */
export function attachCluster(ws: WebSocket, session: LabSession): void {
  const send = (m: ClusterMessage): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (m.type === "status" && ws.bufferedAmount > statusDropBytes) return;
    ws.send(JSON.stringify(m));
    if (m.type === "session" && m.session.state === "destroyed") closeWith(ws, 1000, "session destroyed");
  };
  const unsubscribe = session.subscribe(send);
  ws.on("message", (data, isBinary) => {
    if (!isBinary && frameObject(toBuffer(data))?.["type"] === "ping") send({ type: "pong" });
  });
  ws.on("close", unsubscribe);
}

function toBuffer(data: RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
}
