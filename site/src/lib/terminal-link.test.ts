import { describe, expect, it } from "vitest";
import type { LinkState, SocketHandlers, SocketLike } from "./terminal-link.ts";
import { pendingInputCharsMax, TerminalLink } from "./terminal-link.ts";

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closed = false;
  constructor(
    readonly url: string,
    private readonly on: SocketHandlers,
  ) {}
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closed = true;
  }
  // Test drivers:
  serverOpen() {
    this.readyState = 1;
  }
  text(msg: unknown) {
    this.on.message(JSON.stringify(msg));
  }
  binary(s: string) {
    this.on.message(new TextEncoder().encode(s).buffer);
  }
  drop() {
    this.readyState = 3;
    this.on.close();
  }
}

function setup(maxAttempts = 12) {
  const sockets: FakeSocket[] = [];
  const screen: string[] = [];
  const states: LinkState[] = [];
  const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  const link = new TerminalLink({
    url: (cols, rows) => `ws://h/ws/terminal?session=s&terminal=main&cols=${cols}&rows=${rows}`,
    socket: (url, on) => {
      const s = new FakeSocket(url, on);
      sockets.push(s);
      return s;
    },
    sink: {
      write: (b) => screen.push(new TextDecoder().decode(b)),
      reset: () => screen.push("<reset>"),
    },
    onState: (s) => states.push(s),
    schedule: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return () => (t.cancelled = true);
    },
    random: () => 0.5,
    maxAttempts,
  });
  const attached = (s: FakeSocket, over: Record<string, unknown> = {}) => {
    s.serverOpen();
    s.text({
      type: "attached",
      terminal: "main",
      pid: 42,
      cols: 100,
      rows: 30,
      replayBytes: 0,
      created: true,
      ...over,
    });
  };
  return { link, sockets, screen, states, timers, attached };
}

describe("TerminalLink", () => {
  it("connects with the terminal size and shows output", () => {
    const t = setup();
    t.link.connect(100, 30);
    expect(t.sockets[0]?.url).toBe("ws://h/ws/terminal?session=s&terminal=main&cols=100&rows=30");
    t.attached(t.sockets[0]!);
    t.sockets[0]!.binary("[01-what-lives-in-etcd] ~ $ ");
    expect(t.screen).toEqual(["<reset>", "[01-what-lives-in-etcd] ~ $ "]);
    expect(t.states.at(-1)).toEqual({ kind: "live", pid: 42 });
  });

  it("sends input and resizes as JSON frames", () => {
    const t = setup();
    t.link.connect(100, 30);
    t.attached(t.sockets[0]!);
    t.link.input("etcdctl get foo\r");
    t.link.resize(120, 40);
    t.link.resize(120, 40);
    expect(t.sockets[0]!.sent).toEqual([
      '{"type":"input","data":"etcdctl get foo\\r"}',
      '{"type":"resize","cols":120,"rows":40}',
    ]);
  });

  it("queues input typed before the shell is attached, bounded", () => {
    const t = setup();
    t.link.connect(100, 30);
    t.link.input("ls\r");
    t.link.input("x".repeat(pendingInputCharsMax));
    t.attached(t.sockets[0]!);
    const sent = t.sockets[0]!.sent.map((s) => JSON.parse(s) as { data: string });
    expect(sent.map((m) => m.data).join("")).toHaveLength(pendingInputCharsMax);
    expect(sent[0]!.data.startsWith("ls\r")).toBe(true);
  });

  it("corrects the size when the server attached with another one", () => {
    const t = setup();
    t.link.connect(90, 20);
    t.attached(t.sockets[0]!, { cols: 80, rows: 24 });
    expect(t.sockets[0]!.sent).toEqual(['{"type":"resize","cols":90,"rows":20}']);
  });

  it("reconnects after a drop and rebuilds the screen from the replay", () => {
    const t = setup();
    t.link.connect(100, 30);
    t.attached(t.sockets[0]!);
    t.sockets[0]!.binary("old output");
    t.sockets[0]!.drop();
    expect(t.states.at(-1)).toEqual({ kind: "reconnecting", inMs: 250, attempt: 1 });
    t.timers[0]!.fn();
    t.attached(t.sockets[1]!, { replayBytes: 10, created: false });
    t.sockets[1]!.binary("old output");
    expect(t.screen).toEqual(["<reset>", "old output", "<reset>", "old output"]);
  });

  it("backs off and gives up after maxAttempts drops in a row", () => {
    const t = setup(2);
    t.link.connect(100, 30);
    t.sockets[0]!.drop();
    t.timers[0]!.fn();
    t.sockets[1]!.drop();
    expect(t.states.filter((s) => s.kind === "reconnecting").map((s) => (s as { inMs: number }).inMs)).toEqual([
      250, 500,
    ]);
    t.timers[1]!.fn();
    t.sockets[2]!.drop();
    expect(t.states.at(-1)).toEqual({ kind: "gave-up" });
    t.link.connect(100, 30);
    expect(t.sockets).toHaveLength(4);
  });

  it("clears the screen when the server replaced the shell and stops when it exited", () => {
    const t = setup();
    t.link.connect(100, 30);
    t.attached(t.sockets[0]!);
    t.sockets[0]!.text({ type: "reset" });
    t.sockets[0]!.text({ type: "exit", code: 0, signal: null });
    t.sockets[0]!.text({ type: "something-new" });
    t.sockets[0]!.drop();
    expect(t.screen).toEqual(["<reset>", "<reset>"]);
    expect(t.states.at(-1)).toEqual({ kind: "exited", code: 0 });
    expect(t.timers).toHaveLength(0);
  });

  it("does not reconnect after close()", () => {
    const t = setup();
    t.link.connect(100, 30);
    t.link.close();
    expect(t.sockets[0]!.closed).toBe(true);
    expect(t.timers).toHaveLength(0);
    expect(t.states.at(-1)).toEqual({ kind: "closed" });
  });
});
