// The one guard of the lab server's sockets: whatever a client sends (a frame over maxPayload, bad framing, a reset,
// JSON that is not an object) costs that client its own connection at most, never the server.
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";

/** closeReasonBytesMax is the most a close frame's reason holds (RFC 6455 §5.5: 125 bytes less the 2-byte code). */
export const closeReasonBytesMax = 123;
const pingEveryMs = 30_000;

/**
 * guardWebSocket makes a server-side WebSocket's failures its own and keeps it alive. On an error (a frame over
 * maxPayload, bad framing) ws has already started closing with the RFC's code (1009 too big, 1002/1007 bad framing);
 * on a socket error it has torn the socket down. Either way only this socket ends. A client that stops answering
 * pings (every 30 s) is terminated, unless the server itself paused reading it.
 */
export function guardWebSocket(ws: WebSocket): void {
  ws.on("error", () => {
    if (ws.readyState === ws.OPEN) ws.terminate();
  });
  let alive = true;
  ws.on("pong", () => (alive = true));
  const timer = setInterval(() => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.isPaused) return; // we stopped reading it (input backpressure): its pongs wait unread
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, pingEveryMs);
  ws.on("close", () => clearInterval(timer));
}

/** guardUpgradeSocket keeps a raw upgrade socket's errors (a reset while it is refused) to that socket. */
export function guardUpgradeSocket(socket: Duplex): void {
  socket.on("error", () => socket.destroy());
}

/** closeWith closes a WebSocket unless it is already closing, with the reason cut to what a close frame holds. */
export function closeWith(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.close(code, fitReason(reason));
}

/** fitReason cuts a close reason to closeReasonBytesMax UTF-8 bytes, at a character boundary. */
export function fitReason(reason: string): string {
  if (Buffer.byteLength(reason) <= closeReasonBytesMax) return reason;
  let out = "";
  let bytes = 0;
  for (const ch of reason) {
    bytes += Buffer.byteLength(ch);
    if (bytes > closeReasonBytesMax) break;
    out += ch;
  }
  return out;
}

/** frameObject parses a text frame as a JSON object; anything else (bad JSON, null, a number, an array) is null. */
export function frameObject(data: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(data.toString("utf8"));
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
