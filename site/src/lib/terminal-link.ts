// The client side of /ws/terminal (engine/lab-engine/http/API.md §4.1), without the DOM: it opens the socket, feeds
// output to a sink (xterm), sends input and resizes, rebuilds the screen from the server's replay after a
// reconnect, and reconnects with backoff when the connection drops. Sockets, timers and randomness are
// injected, so every path is unit-tested.
import type { TerminalServerMessage } from "../../../engine/lab-engine/index.ts";
import { reconnectDelayMs } from "./backoff.ts";

/** SocketLike is the part of the browser WebSocket used here (binaryType "arraybuffer"). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** SocketHandlers receive a socket's messages (text as string, binary as ArrayBuffer) and its closing. */
export interface SocketHandlers {
  message(data: unknown): void;
  close(): void;
}

/** TerminalSink is where output goes (xterm in the browser). */
export interface TerminalSink {
  write(data: Uint8Array): void;
  /** reset clears the screen and scrollback (before a replay, or when the server replaced the shell). */
  reset(): void;
}

/** LinkState is what the terminal bar shows. */
export type LinkState =
  | { kind: "connecting" }
  | { kind: "live"; pid: number }
  | { kind: "reconnecting"; inMs: number; attempt: number }
  | { kind: "exited"; code: number | null }
  | { kind: "gave-up" }
  | { kind: "closed" };

/** TerminalLinkOptions wires a link to the world. */
export interface TerminalLinkOptions {
  /** url builds the WebSocket URL for the current size. */
  url(cols: number, rows: number): string;
  /** socket opens a WebSocket and wires its events to the handlers. */
  socket(url: string, on: SocketHandlers): SocketLike;
  sink: TerminalSink;
  onState(state: LinkState): void;
  /** schedule runs fn after ms and returns a cancel function. */
  schedule(fn: () => void, ms: number): () => void;
  random(): number;
  /** maxAttempts is how many reconnects in a row before giving up (the user can retry). */
  maxAttempts?: number;
}

/** pendingInputCharsMax bounds input typed (or sent by Run) while the socket is not open. */
export const pendingInputCharsMax = 64 * 1024;
/** inputFrameCharsMax keeps each input frame under the server's 64 KiB frame limit (UTF-8 may triple). */
export const inputFrameCharsMax = 16 * 1024;

const open = 1;

/** TerminalLink keeps one terminal attached to its shell. */
export class TerminalLink {
  private ws: SocketLike | null = null;
  private cols = 80;
  private rows = 24;
  private attempt = 0;
  private cancelRetry: (() => void) | null = null;
  private pending = "";
  private stopped = false;
  private exited = false;

  constructor(private readonly o: TerminalLinkOptions) {}

  /** connect opens the socket with the terminal's current size (again after gave-up or exit). */
  connect(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.stopped = false;
    this.exited = false;
    this.cancelRetry?.();
    this.cancelRetry = null;
    this.open();
  }

  /** input sends keystrokes or pasted text; while disconnected it is queued (bounded) for the next connection. */
  input(data: string): void {
    if (this.ws && this.ws.readyState === open) {
      for (let i = 0; i < data.length; i += inputFrameCharsMax) {
        this.ws.send(JSON.stringify({ type: "input", data: data.slice(i, i + inputFrameCharsMax) }));
      }
    } else if (!this.stopped && !this.exited) {
      this.pending = (this.pending + data).slice(0, pendingInputCharsMax);
    }
  }

  /** resize tells the shell the new size. */
  resize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    if (this.ws && this.ws.readyState === open) this.ws.send(JSON.stringify({ type: "resize", cols, rows }));
  }

  /** close ends the link for good (page unload). */
  close(): void {
    this.stopped = true;
    this.cancelRetry?.();
    this.ws?.close(1000, "closed");
    this.ws = null;
    this.o.onState({ kind: "closed" });
  }

  private open(): void {
    this.o.onState({ kind: "connecting" });
    const ws: SocketLike = this.o.socket(this.o.url(this.cols, this.rows), {
      message: (data) => {
        if (this.ws === ws) this.message(data);
      },
      close: () => {
        if (this.ws === ws) this.dropped();
      },
    });
    this.ws = ws;
  }

  private message(data: unknown): void {
    if (typeof data !== "string") {
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data as ArrayBuffer);
      this.o.sink.write(bytes);
      return;
    }
    let msg: TerminalServerMessage;
    try {
      msg = JSON.parse(data) as TerminalServerMessage;
    } catch {
      return;
    }
    switch (msg.type) {
      case "attached":
        // A fresh screen: the server replays recent output next, so nothing is shown twice after a reconnect.
        this.o.sink.reset();
        this.attempt = 0;
        this.o.onState({ kind: "live", pid: msg.pid });
        if (msg.cols !== this.cols || msg.rows !== this.rows) {
          this.ws?.send(JSON.stringify({ type: "resize", cols: this.cols, rows: this.rows }));
        }
        if (this.pending) {
          const queued = this.pending;
          this.pending = "";
          this.input(queued);
        }
        break;
      case "reset":
        this.o.sink.reset();
        break;
      case "exit":
        this.exited = true;
        this.pending = "";
        this.o.onState({ kind: "exited", code: msg.code });
        break;
      default:
        // Unknown message types are ignored (API.md: additive changes only).
        break;
    }
  }

  private dropped(): void {
    this.ws = null;
    if (this.stopped || this.exited) return;
    const max = this.o.maxAttempts ?? 12;
    if (this.attempt >= max) {
      this.o.onState({ kind: "gave-up" });
      return;
    }
    const inMs = reconnectDelayMs(this.attempt, this.o.random);
    this.attempt++;
    this.o.onState({ kind: "reconnecting", inMs, attempt: this.attempt });
    this.cancelRetry = this.o.schedule(() => {
      this.cancelRetry = null;
      if (!this.stopped) this.open();
    }, inMs);
  }
}
