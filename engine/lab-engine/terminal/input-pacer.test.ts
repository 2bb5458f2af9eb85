// The input pacer with a fake pty and fake time: the rate, the bounded queue and its backpressure, no spinning on a
// pty that takes nothing, and Ctrl-C going first with the typeahead dropped.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  InputPacer,
  inputBurstBytes,
  inputBytesPerSecond,
  inputHighWaterBytes,
  inputQueueBytesMax,
  inputRetryMaxMs,
  inputStallMs,
} from "./input-pacer.ts";

/** fakePty takes up to `room()` bytes per write and records what it got. */
function fakePty(room: () => number) {
  const got: Buffer[] = [];
  let calls = 0;
  const sink = (data: Buffer): number => {
    calls++;
    const n = Math.min(data.length, room());
    got.push(Buffer.from(data.subarray(0, n)));
    return n;
  };
  return {
    sink,
    text: () => Buffer.concat(got).toString("latin1"),
    bytes: () => Buffer.concat(got).length,
    calls: () => calls,
  };
}

describe("InputPacer", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("writes a burst at once, then at most inputBytesPerSecond", () => {
    const pty = fakePty(() => Infinity);
    const pacer = new InputPacer(pty.sink, () => undefined);
    for (let i = 0; i < 16; i++) pacer.push(Buffer.alloc(64 * 1024, 0x61));
    expect(pty.bytes()).toBe(inputBurstBytes);
    vi.advanceTimersByTime(500);
    expect(pty.bytes()).toBeLessThanOrEqual(inputBurstBytes + inputBytesPerSecond / 2);
    expect(pty.bytes()).toBeGreaterThan(inputBytesPerSecond / 4);
    vi.advanceTimersByTime(2000);
    expect(pty.bytes()).toBe(Math.min(16 * 64 * 1024, inputQueueBytesMax));
    expect(pacer.queued).toBe(0);
  });

  it("bounds the queue and asks for backpressure until it drains", () => {
    let room = 0;
    const pty = fakePty(() => room);
    let drains = 0;
    const pacer = new InputPacer(pty.sink, () => drains++);
    let accepted = true;
    let pushes = 0;
    while (accepted && pushes < 100) {
      accepted = pacer.push(Buffer.alloc(64 * 1024, 0x62));
      pushes++;
    }
    expect(accepted).toBe(false);
    expect(pacer.queued).toBeGreaterThan(inputHighWaterBytes);
    // A client that ignores the backpressure: the queue stays at its bound, the rest is dropped.
    for (let i = 0; i < 100; i++) pacer.push(Buffer.alloc(64 * 1024, 0x62));
    expect(pacer.queued).toBe(inputQueueBytesMax);
    expect(pacer.dropped).toBe(pushes * 64 * 1024 + 100 * 64 * 1024 - inputQueueBytesMax);
    room = Infinity;
    vi.advanceTimersByTime(5000);
    expect(pacer.queued).toBe(0);
    expect(drains).toBe(1);
  });

  it("does not spin on a pty that takes nothing: retries back off to one per inputRetryMaxMs", () => {
    const pty = fakePty(() => 0);
    const pacer = new InputPacer(pty.sink, () => undefined);
    pacer.push(Buffer.alloc(1000, 0x63));
    vi.advanceTimersByTime(10_000);
    expect(pty.calls()).toBeLessThanOrEqual(10_000 / inputRetryMaxMs + 10);
    expect(pacer.queued).toBe(1000);
  });

  it("reads the clients again once the program has not read for inputStallMs, dropping past the bound", () => {
    const pty = fakePty(() => 0);
    let drains = 0;
    const pacer = new InputPacer(pty.sink, () => drains++);
    while (pacer.push(Buffer.alloc(64 * 1024, 0x64)));
    expect(drains).toBe(0);
    vi.advanceTimersByTime(inputStallMs + inputRetryMaxMs);
    expect(drains).toBe(1);
    for (let i = 0; i < 50; i++) expect(pacer.push(Buffer.alloc(64 * 1024, 0x64))).toBe(true);
    expect(pacer.queued).toBe(inputQueueBytesMax);
  });

  it("sends Ctrl-C at once, dropping the typeahead before it", () => {
    let room = 0;
    const pty = fakePty(() => room);
    const pacer = new InputPacer(pty.sink, () => undefined);
    pacer.push(Buffer.from("x".repeat(200_000)));
    expect(pacer.queued).toBe(200_000);
    room = Infinity; // the shell reads again (the line discipline takes an interrupt even when it was full)
    pacer.push(Buffer.from("more\x03echo ok\r"));
    expect(pty.text()).toBe("\x03echo ok\r");
    expect(pacer.queued).toBe(0);
  });

  it("signals the program on Ctrl-C when it has stopped reading", () => {
    const pty = fakePty(() => 0);
    let interrupts = 0;
    const pacer = new InputPacer(
      pty.sink,
      () => undefined,
      () => interrupts++,
    );
    pacer.push(Buffer.from("typed ahead"));
    pacer.push(Buffer.from("\x03"));
    expect(interrupts).toBe(0); // just queued: the line discipline gets the ^C itself
    pacer.push(Buffer.from("more"));
    vi.advanceTimersByTime(inputStallMs + inputRetryMaxMs);
    pacer.push(Buffer.from("\x03"));
    expect(interrupts).toBe(1);
    expect(pacer.queued).toBe(1);
  });
});
