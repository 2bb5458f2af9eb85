// Terminal input, paced: what clients type or paste goes into a bounded queue and reaches the pty at most
// inputBytesPerSecond, and only as much as the pty takes (a non-blocking write that may take less). The queue's
// fill is the backpressure on the clients while the program reads; a program that stops reading costs a retry now
// and then (backing off to inputRetryMaxMs), never a spin, and after inputStallMs the clients are read again with
// input past the queue's bound dropped — as a tty drops input past its buffer — so that a Ctrl-C still arrives.
// Ctrl-C discards the typeahead and goes first, as a terminal's own interrupt does; when the program has stopped
// reading, the line discipline would not see it behind its full buffer, so `interrupt` signals the program instead.

/** InputSink writes bytes to the pty without blocking and says how many it took (0: the pty is full now). */
export type InputSink = (data: Buffer) => number;

/** inputBytesPerSecond is the steady rate of input into one terminal; inputBurstBytes may go at once. */
export const inputBytesPerSecond = 1024 * 1024;
export const inputBurstBytes = 64 * 1024;
/** inputHighWaterBytes queued makes write() answer false (pause the clients); inputLowWaterBytes resumes them. */
export const inputHighWaterBytes = 256 * 1024;
export const inputLowWaterBytes = 64 * 1024;
/** inputQueueBytesMax bounds the queue; input past it (a client that ignores backpressure) is dropped. */
export const inputQueueBytesMax = 1024 * 1024;
/** inputRetryMs is the wait before writing again after the rate is spent; a full pty doubles it to inputRetryMaxMs. */
export const inputRetryMs = 10;
export const inputRetryMaxMs = 200;
/** inputStallMs without the pty taking a byte ends the backpressure (the program is not reading). */
export const inputStallMs = 500;

const ctrlC = 0x03;

/** InputPacer is one terminal's input queue. */
export class InputPacer {
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private tokens = inputBurstBytes;
  private refilledAt: number;
  private timer: NodeJS.Timeout | null = null;
  private retryMs = inputRetryMs;
  /** progressAt is when the pty last took input, or the queue last started to wait. */
  private progressAt: number;
  private full = false;
  /** dropped counts bytes refused because the queue was at inputQueueBytesMax. */
  dropped = 0;

  constructor(
    private readonly sink: InputSink,
    private readonly onDrain: () => void,
    private readonly interrupt: () => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.refilledAt = now();
    this.progressAt = this.refilledAt;
  }

  /** queued is how many bytes wait for the pty. */
  get queued(): number {
    return this.queuedBytes;
  }

  /**
   * push queues input and writes what it may now; false when the queue is over inputHighWaterBytes while the
   * program reads (the caller stops reading its clients until onDrain). Input with a Ctrl-C drops what was queued
   * before the Ctrl-C.
   */
  push(data: Buffer): boolean {
    const cc = data.lastIndexOf(ctrlC);
    if (cc >= 0) {
      if (this.stalled()) this.interrupt();
      this.clear();
      this.tokens = inputBurstBytes; // the interrupt and what follows it go at once
      data = data.subarray(cc);
    }
    const room = inputQueueBytesMax - this.queuedBytes;
    if (data.length > room) {
      this.dropped += data.length - room;
      data = data.subarray(0, room);
    }
    if (data.length) {
      if (this.queuedBytes === 0) this.progressAt = this.now();
      this.queue.push(data);
      this.queuedBytes += data.length;
    }
    if (this.queuedBytes > inputHighWaterBytes && !this.stalled()) this.full = true;
    this.pump();
    return !this.full;
  }

  /** clear drops what is queued (Ctrl-C, or the shell went away). */
  clear(): void {
    this.queue = [];
    this.queuedBytes = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.drained();
  }

  private pump(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = this.now();
    this.tokens = Math.min(inputBurstBytes, this.tokens + ((now - this.refilledAt) * inputBytesPerSecond) / 1000);
    this.refilledAt = now;
    for (let head = this.queue[0]; head && this.tokens >= 1; head = this.queue[0]) {
      const n = Math.min(head.length, Math.floor(this.tokens));
      const wrote = this.sink(head.subarray(0, n));
      if (wrote > 0) {
        this.progressAt = now;
        this.retryMs = inputRetryMs;
      }
      this.tokens -= wrote;
      this.queuedBytes -= wrote;
      if (wrote === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(wrote);
      if (wrote < n) {
        this.retryMs = Math.min(inputRetryMaxMs, this.retryMs * 2); // the pty is full: the program is not reading
        break;
      }
    }
    if (this.queuedBytes <= inputLowWaterBytes || this.stalled()) this.drained();
    if (this.queue.length) this.timer = setTimeout(() => this.pump(), this.retryMs);
  }

  private stalled(): boolean {
    return this.queuedBytes > 0 && this.now() - this.progressAt >= inputStallMs;
  }

  private drained(): void {
    if (!this.full) return;
    this.full = false;
    this.onDrain();
  }
}
