// Bad input against a real lab server must cost only the connection that sent it: an over-long WebSocket frame,
// JSON frames that are not objects, request targets that are not URLs, a reset during a refused upgrade, a body
// over the limit (413, not a reset). After each the server still answers, and the other sockets still work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import type { ClusterStatus, Me, Session } from "../../engine/lab-engine/index.ts";
import { testBackends } from "../../engine/lab-engine/cluster/testing.ts";
import { inputQueueBytesMax } from "../../engine/lab-engine/terminal/input-pacer.ts";
import { connectWs, startTestServer, until, type TestServer } from "./helpers.ts";

const backends = await testBackends();
const backend = backends[0];
if (!backend) it.skip("hardening: no usable backend (see the SKIPPING lines above)", () => undefined);

/** raw sends bytes on a fresh TCP connection and resolves with everything the server answered before closing. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s: Socket = connect(port, "127.0.0.1", () => s.end(request));
    const chunks: Buffer[] = [];
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    s.on("error", reject);
  });
}

describe.runIf(backend)(`hardening (${backend})`, () => {
  let t: TestServer;
  let session: Session;
  const stillServing = async (): Promise<void> => {
    const me = await t.api<Me>("GET", "/api/me");
    expect(me.status).toBe(200);
  };

  beforeAll(async () => {
    t = await startTestServer({ backend: backend ?? "ours" });
    const created = await t.api<Session>("POST", "/api/sessions", { lab: "00-example" });
    expect(created.status).toBe(201);
    session = created.body;
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it("closes only the socket that sent a frame over the payload limit (1009)", async () => {
    const bystander = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
    for (const path of [`/ws/terminal?session=${session.id}&terminal=big`, `/ws/cluster?session=${session.id}`]) {
      const ws = await connectWs(t.server, path);
      ws.ws.send(Buffer.alloc(200 * 1024, 0x61));
      expect((await ws.closed).code).toBe(1009);
      await stillServing();
    }
    bystander.send({ type: "input", data: "echo bystander-$((6*7))\r" });
    expect(await until(() => bystander.text().includes("bystander-42"), 10_000)).toBe(true);
    bystander.close();
  });

  it("ignores JSON frames that are not objects", async () => {
    const term = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
    const cluster = await connectWs(t.server, `/ws/cluster?session=${session.id}`);
    for (const frame of ["null", "42", '"input"', "[]", '{"type":"input","data":null}', '{"type":"resize"}']) {
      term.ws.send(frame);
      cluster.ws.send(frame);
    }
    term.send({ type: "input", data: "echo after-$((40+2))\r" });
    expect(await until(() => term.text().includes("after-42"), 10_000)).toBe(true);
    cluster.send({ type: "ping" });
    expect(await until(() => cluster.of("pong").length > 0, 10_000)).toBe(true);
    await stillServing();
    term.close();
    cluster.close();
  });

  it("answers 400 to a request target that is not a URL, also on an upgrade", async () => {
    for (const target of ["//", "//a:b@"]) {
      expect(await raw(t.server.port, `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 400 /,
      );
      const upgrade = await raw(
        t.server.port,
        `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
          `sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      expect(upgrade).toMatch(/^HTTP\/1\.1 400 /);
      await stillServing();
    }
  });

  it("survives a client that resets the connection while its upgrade is refused", async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const s = connect(t.server.port, "127.0.0.1", () => {
          s.write(
            `GET /ws/cluster?session=${session.id} HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
              `sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
          );
          s.resetAndDestroy();
          resolve();
        });
      });
    }
    await stillServing();
  });

  it("answers 413 too_large to a body over 64 KiB, on a connection that stays usable", async () => {
    const big = await t.api<{ error: { code: string; message: string } }>("POST", "/api/sessions", {
      lab: "x".repeat(100 * 1024),
    });
    expect(big.status).toBe(413);
    expect(big.body.error).toEqual({ code: "too_large", message: "request body over 65536 bytes" });
    const auth = await fetch(`${t.server.url}/api/auth`, { method: "POST", body: "x".repeat(1024 * 1024) });
    expect(auth.status).toBe(413);
    // Past the drain allowance the connection goes (the answer may or may not arrive first); the server stays.
    const huge = await fetch(`${t.server.url}/api/auth`, { method: "POST", body: "x".repeat(8 * 1024 * 1024) }).catch(
      () => null,
    );
    expect(huge === null || huge.status === 413).toBe(true);
    await stillServing();
  });

  it("shows a member stopped with kill -STOP from the shell as paused and out of quorum, as the lab's pause", async () => {
    const cluster = await connectWs(t.server, `/ws/cluster?session=${session.id}`);
    const term = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=main`);
    const last = (): ClusterStatus | undefined => cluster.of("status").at(-1)?.["status"] as ClusterStatus | undefined;
    const m1 = () => last()?.members.find((m) => m.name === "m1");
    expect(await until(() => m1()?.process === "up" && last()?.quorum.hasQuorum === true, 20_000)).toBe(true);
    const pid = m1()?.pid;
    term.send({ type: "input", data: `kill -STOP ${pid}\r` });
    expect(await until(() => m1()?.process === "paused", 20_000)).toBe(true);
    expect(last()?.quorum).toMatchObject({ up: 0, hasQuorum: false });
    expect(
      await until(
        () => cluster.of("event").some((m) => (m["event"] as { type: string }).type === "quorum.lost"),
        10_000,
      ),
    ).toBe(true);
    // The lab's own resume continues it, as it would after `lab pause m1`.
    expect((await t.api("POST", `/api/sessions/${session.id}/members/m1/resume`)).status).toBe(200);
    expect(await until(() => m1()?.process === "up" && last()?.quorum.hasQuorum === true, 20_000)).toBe(true);
    cluster.close();
    term.close();
  }, 60_000);

  it("paces a terminal input flood: the queue stays bounded, the client is held back, Ctrl-C still gets through", async () => {
    const term = await connectWs(t.server, `/ws/terminal?session=${session.id}&terminal=flood`);
    // Non-canonical, no echo: the line discipline takes ~4 KiB and then nothing (in canonical mode it would drop
    // what is past its line buffer and echo the rest, reading as fast as it can).
    term.send({ type: "input", data: "stty -icanon -echo; echo sleeping; sleep 600\r" });
    expect(await until(() => term.text().includes("sleeping\r\n"), 10_000)).toBe(true);
    const terminal = t.server.manager.get(session.id)?.openTerminal("flood").terminal;
    expect(terminal).toBeDefined();
    // 16 MiB for a program that reads nothing: the server holds at most its bounded queue.
    const frame = Buffer.alloc(64 * 1024, 0x78);
    for (let i = 0; i < 256; i++) term.ws.send(frame);
    expect(await until(() => (terminal?.inputQueued ?? 0) > inputQueueBytesMax / 2, 20_000)).toBe(true);
    let maxQueued = 0;
    let maxBuffered = 0;
    await until(() => {
      maxQueued = Math.max(maxQueued, terminal?.inputQueued ?? 0);
      maxBuffered = Math.max(maxBuffered, term.ws.bufferedAmount);
      return term.ws.bufferedAmount === 0;
    }, 60_000);
    expect(maxQueued).toBeLessThanOrEqual(inputQueueBytesMax);
    // The server stopped reading while the queue was full: the flood waited in the client's socket for a while.
    expect(maxBuffered).toBeGreaterThan(1024 * 1024);
    // Ctrl-C reaches the program although the pty takes no input (the server signals it, as the line discipline
    // would): the shell prompts again. What the kernel had already taken is the next line's typeahead; a second
    // Ctrl-C clears it in readline, as in any terminal.
    const prompts = terminal?.promptCount ?? 0;
    term.send({ type: "input", data: "\x03" });
    expect(await until(() => (terminal?.promptCount ?? 0) > prompts, 20_000)).toBe(true);
    term.send({ type: "input", data: "\x03" });
    term.send({ type: "input", data: "stty sane; echo interrupted-$((6*7))\r" });
    expect(await until(() => term.text().includes("interrupted-42"), 20_000)).toBe(true);
    expect(terminal?.inputQueued).toBe(0);
    term.close();
  }, 120_000);
});
