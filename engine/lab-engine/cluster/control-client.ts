// The engine side of our member's fault channel (engine/store/pkg/control-channel.ts is the member side):
// newline-delimited JSON over a unix socket, one request per line, answers matched by id.
import { connect, type Socket } from "node:net";
import type { MemberFaults } from "../types/status-types.ts";

/** ControlRequest is one fault-channel request (without its id). */
export type ControlRequest =
  | { op: "status" }
  | { op: "drop"; peers: string[]; direction: "in" | "out" | "both" }
  | { op: "delay"; peers: string[]; ms: number }
  | { op: "heal" }
  | { op: "fsync-delay"; ms: number };

/** ChannelStatus is the member's own account of its faults. */
export interface ChannelStatus {
  name: string;
  memberId: string;
  drop: { in: string[]; out: string[] };
  delayMs: Record<string, number>;
  fsyncDelayMs: number;
}

/** ControlError is a failed fault-channel request, carrying the member's error text. */
export class ControlError extends Error {
  override name = "ControlError";
}

const pendingMax = 64;

/** ControlClient talks to one member's fault channel; it reconnects on the next request after a failure. */
export class ControlClient {
  private sock: Socket | null = null;
  private connecting: Promise<Socket> | null = null;
  private nextId = 1;
  private buf = "";
  private readonly pending = new Map<
    number,
    { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();

  constructor(
    readonly path: string,
    readonly timeoutMs = 2000,
  ) {}

  /** request sends one request and resolves with the member's answer (ok: true) or rejects with ControlError. */
  async request(req: ControlRequest): Promise<Record<string, unknown>> {
    if (this.pending.size >= pendingMax)
      throw new ControlError(`fault channel ${this.path}: ${pendingMax} requests pending`);
    const sock = await this.socket();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ControlError(`fault channel ${this.path}: no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      sock.write(JSON.stringify({ id, ...req }) + "\n");
    });
  }

  /** status asks the member for its current faults. */
  async status(): Promise<ChannelStatus> {
    const res = await this.request({ op: "status" });
    return res["status"] as ChannelStatus;
  }

  /** apply makes the member's faults equal `faults` (heal, then drops, delays and the fsync delay). */
  async apply(faults: MemberFaults): Promise<void> {
    await this.request({ op: "heal" });
    const both = faults.dropIn.filter((p) => faults.dropOut.includes(p));
    const inOnly = faults.dropIn.filter((p) => !both.includes(p));
    const outOnly = faults.dropOut.filter((p) => !both.includes(p));
    if (both.length) await this.request({ op: "drop", peers: both, direction: "both" });
    if (inOnly.length) await this.request({ op: "drop", peers: inOnly, direction: "in" });
    if (outOnly.length) await this.request({ op: "drop", peers: outOnly, direction: "out" });
    const byMs = new Map<number, string[]>();
    for (const [peer, ms] of Object.entries(faults.delayMs)) byMs.set(ms, [...(byMs.get(ms) ?? []), peer]);
    for (const [ms, peers] of byMs) if (ms > 0) await this.request({ op: "delay", peers, ms });
    await this.request({ op: "fsync-delay", ms: faults.fsyncDelayMs });
  }

  /** close drops the connection; pending requests fail. */
  close(): void {
    this.sock?.destroy();
    this.sock = null;
  }

  private socket(): Promise<Socket> {
    if (this.sock) return Promise.resolve(this.sock);
    if (this.connecting) return this.connecting;
    this.connecting = new Promise<Socket>((resolve, reject) => {
      const s = connect(this.path);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new ControlError(`fault channel ${this.path}: connect timed out`));
      }, this.timeoutMs);
      s.setEncoding("utf8");
      s.once("connect", () => {
        clearTimeout(timer);
        this.sock = s;
        resolve(s);
      });
      s.on("data", (chunk: string) => this.onData(chunk));
      s.on("error", (err) => {
        clearTimeout(timer);
        reject(new ControlError(`fault channel ${this.path}: ${err.message}`));
      });
      s.on("close", () => {
        if (this.sock === s) this.sock = null;
        for (const p of this.pending.values())
          p.reject(new ControlError(`fault channel ${this.path}: connection closed`));
        this.pending.clear();
      });
    }).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const p = typeof msg["id"] === "number" ? this.pending.get(msg["id"]) : undefined;
      if (!p) continue;
      this.pending.delete(msg["id"] as number);
      if (msg["ok"] === true) p.resolve(msg);
      else p.reject(new ControlError(String(msg["error"] ?? "fault channel request failed")));
    }
  }
}
