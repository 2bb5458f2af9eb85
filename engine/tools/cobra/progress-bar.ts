// cheggaaa/pb v3.1.6's default progress bar, as `etcdctl check perf` draws it on stderr:
// `23 / 60 [------------->____________________] 38.33% 1 p/s`. It redraws every 200 ms; on a terminal each
// frame starts with "\r", is padded to the terminal width and the last frame ends with "\n"; off a terminal
// frames are written back to back, exactly as pb does.

/** ProgressBarOptions inject the world: where frames go, the clocks, and the terminal facts. */
export interface ProgressBarOptions {
  write: (s: string) => void;
  nowMs: () => number;
  /** terminal: pb's Terminal flag (stderr is a terminal). */
  terminal: boolean;
  /** widthColumns is the terminal width pb reads from /dev/tty (100 when unknown). */
  widthColumns: number | undefined;
  refreshMs?: number;
}

import { formatFloatFixed } from "../../go/go-strconv.ts";

const placeholder = "%_ad_el_%";
const decay = 2 / (30 + 1);

/** ProgressBar renders pb's Default template: counters, adaptive bar, percent, speed. */
export class ProgressBar {
  private current = 0;
  private stateId = 0;
  private startMs = 0;
  private finished = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  // speed element state (EWMA of per-interval rates, as pb's speed.go)
  private ewma = 0;
  private prevValue = 0;
  private prevMs = 0;
  private speedStartMs = 0;

  constructor(
    private readonly total: number,
    private readonly opts: ProgressBarOptions,
  ) {}

  start(): void {
    this.startMs = this.opts.nowMs();
    this.timer = setInterval(() => this.write(false), this.opts.refreshMs ?? 200);
  }

  add(n: number): void {
    this.current += n;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.write(true);
  }

  private width(): number {
    return this.opts.widthColumns ?? 100;
  }

  private write(finish: boolean): void {
    let frame = this.render();
    const width = this.width();
    if (this.opts.terminal) {
      const r = width - frame.length;
      if (r > 0) frame += " ".repeat(r);
      frame = `\r${frame}`;
      if (finish) frame += "\n";
    }
    this.opts.write(frame);
  }

  /** render returns one frame (exposed for tests). */
  render(): string {
    this.stateId++;
    const nowMs = this.opts.nowMs();
    const counters = `${this.current} / ${this.total}`;
    const percent = this.total > 0 ? `${formatFloatFixed(this.current / (this.total / 100), 2)}%` : "?%";
    const speed = this.speed(nowMs);
    const withPlaceholder = `${counters} ${placeholder} ${percent} ${speed}`;
    const staticWidth = withPlaceholder.length - placeholder.length;
    const width = this.width();
    if (width - staticWidth <= 0) return withPlaceholder.replace(placeholder, "").slice(0, width);
    return withPlaceholder.replace(placeholder, this.bar(width - staticWidth));
  }

  private bar(adaptiveWidth: number): string {
    let widthLeft = adaptiveWidth > 0 ? adaptiveWidth : 30;
    let total = Math.abs(this.total);
    const value = Math.abs(this.current);
    if (total !== 0 && value > total) total = value;
    if (widthLeft <= 1) return "[".repeat(widthLeft);
    let out = "[";
    widthLeft -= 1;
    if (widthLeft <= 1) return out + "]".repeat(widthLeft);
    widthLeft -= 1;
    const curCount = total > 0 ? Math.ceil((value / total) * widthLeft) : 0;
    if (total === value && this.finished) {
      out += "-".repeat(curCount);
      widthLeft -= curCount;
    } else if (curCount - 1 > 0) {
      out += `${"-".repeat(curCount - 1)}>`;
      widthLeft -= curCount;
    } else if (curCount > 0) {
      out += ">".repeat(curCount);
      widthLeft -= curCount;
    }
    if (widthLeft > 0) out += "_".repeat(widthLeft);
    return `${out}]`;
  }

  private speed(nowMs: number): string {
    let sp: number;
    if (this.stateId === 1) {
      this.speedStartMs = nowMs;
      this.prevMs = nowMs;
      this.prevValue = this.current;
      this.ewma = 0;
      sp = 0;
    } else if (this.finished) {
      const dur = (nowMs - this.speedStartMs) / 1000;
      sp = dur > 0 ? this.current / dur : 0;
    } else if (nowMs - this.prevMs < 500) {
      sp = this.ewma;
    } else {
      const rate = Math.abs(this.current - this.prevValue) / ((nowMs - this.prevMs) / 1000);
      this.prevMs = nowMs;
      this.prevValue = this.current;
      this.ewma = this.ewma === 0 ? rate : rate * decay + this.ewma * (1 - decay);
      sp = this.ewma;
    }
    return sp === 0 ? "? p/s" : `${Math.floor(sp + 0.5)} p/s`;
  }
}
