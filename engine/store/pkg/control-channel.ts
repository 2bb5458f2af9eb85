// The lab's fault channel: a unix socket (path from ETCD_LAB_CONTROL_SOCKET) on which the lab engine tells
// this member to drop or delay peer traffic and to slow its fsyncs. It is never reachable from the client
// or peer ports. Protocol: newline-delimited JSON, one request and one response per line, matched by id:
//   {"id":1,"op":"status"} → {"id":1,"ok":true,"status":{...}}
//   {"id":2,"op":"drop","peers":["m2"],"direction":"both"|"in"|"out"}
//   {"id":3,"op":"delay","peers":["m3"],"ms":200}
//   {"id":4,"op":"heal"}
//   {"id":5,"op":"fsync-delay","ms":50}
// Errors: {"id":n,"ok":false,"error":"<text>"}.
import { createServer, type Server, type Socket } from "node:net";
import { rmSync } from "node:fs";

/** DropDirection says which way peer traffic is dropped. */
export type DropDirection = "in" | "out" | "both";

/** ControlTarget is what the member exposes to the fault channel. Peers are named by member name. */
export interface ControlTarget {
  status(): Record<string, unknown>;
  drop(peers: string[], direction: DropDirection): void;
  delay(peers: string[], ms: number): void;
  heal(): void;
  setFsyncDelay(ms: number): void;
}

const maxLineBytes = 64 * 1024;

/** ControlChannel serves the fault channel on a unix socket until closed. */
export class ControlChannel {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly path: string,
  ) {}

  /** listen removes a stale socket file at `path` and starts serving `target` there. */
  static async listen(path: string, target: ControlTarget): Promise<ControlChannel> {
    rmSync(path, { force: true });
    const server = createServer();
    const channel = new ControlChannel(server, path);
    server.on("connection", (sock) => channel.serve(sock, target));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return channel;
  }

  /** close stops listening, drops connections and removes the socket file. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }

  private serve(sock: Socket, target: ControlTarget): void {
    this.sockets.add(sock);
    sock.on("close", () => this.sockets.delete(sock));
    sock.on("error", () => sock.destroy());
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("data", (chunk: string) => {
      buf += chunk;
      if (buf.length > maxLineBytes && !buf.includes("\n")) {
        sock.end(
          JSON.stringify({ id: null, ok: false, error: `request line longer than ${maxLineBytes} bytes` }) + "\n",
        );
        return;
      }
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) sock.write(JSON.stringify(handle(line, target)) + "\n");
      }
    });
  }
}

function handle(line: string, target: ControlTarget): Record<string, unknown> {
  let req: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    req = parsed as Record<string, unknown>;
  } catch (err) {
    return { id: null, ok: false, error: `malformed request: ${(err as Error).message}` };
  }
  const id = req["id"] ?? null;
  try {
    switch (req["op"]) {
      case "status":
        return { id, ok: true, status: target.status() };
      case "drop": {
        const direction = req["direction"] ?? "both";
        if (direction !== "in" && direction !== "out" && direction !== "both") {
          throw new Error(`direction must be "in", "out" or "both", got ${JSON.stringify(direction)}`);
        }
        target.drop(peerList(req), direction);
        return { id, ok: true };
      }
      case "delay":
        target.delay(peerList(req), nonNegativeMs(req));
        return { id, ok: true };
      case "heal":
        target.heal();
        return { id, ok: true };
      case "fsync-delay":
        target.setFsyncDelay(nonNegativeMs(req));
        return { id, ok: true };
      default:
        throw new Error(`unknown op ${JSON.stringify(req["op"])} (want status, drop, delay, heal or fsync-delay)`);
    }
  } catch (err) {
    return { id, ok: false, error: (err as Error).message };
  }
}

function peerList(req: Record<string, unknown>): string[] {
  const peers = req["peers"];
  if (!Array.isArray(peers) || peers.length === 0 || !peers.every((p) => typeof p === "string" && p !== "")) {
    throw new Error(`"peers" must be a non-empty list of member names`);
  }
  return peers as string[];
}

function nonNegativeMs(req: Record<string, unknown>): number {
  const ms = req["ms"];
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > 60_000) {
    throw new Error(`"ms" must be a number of milliseconds between 0 and 60000`);
  }
  return ms;
}
