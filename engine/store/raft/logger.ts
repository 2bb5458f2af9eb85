// The Raft core logs through a small injected interface. Messages are plain strings with etcd-io/raft's
// wording (ids in hex), so the server can print them as zap-style JSON lines the way etcd does
// ("raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 2").

/** RaftLogLevel orders the levels a RaftLogger receives. */
export type RaftLogLevel = "debug" | "info" | "warn" | "error";

/** RaftLogger receives the core's log lines. It must not throw and must not call back into Raft. */
export interface RaftLogger {
  /** debugEnabled lets hot paths skip formatting debug lines nobody reads. */
  readonly debugEnabled: boolean;
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** discardLogger drops every line (the default). */
export const discardLogger: RaftLogger = {
  debugEnabled: false,
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** LogLine is one captured log line. */
export interface LogLine {
  level: RaftLogLevel;
  msg: string;
}

/**
 * BufferLogger keeps the lines at or above `level` in memory (bounded: the oldest are dropped past
 * `maxLines`). Tests, the interaction environment and the simulator read them back.
 */
export class BufferLogger implements RaftLogger {
  readonly lines: LogLine[] = [];
  /** droppedLines counts lines dropped because the buffer was full. */
  droppedLines = 0;
  constructor(
    public level: RaftLogLevel | "none" = "info",
    private readonly maxLines = 10_000,
  ) {}
  get debugEnabled(): boolean {
    return this.level === "debug";
  }
  debug(msg: string): void {
    this.push("debug", msg);
  }
  info(msg: string): void {
    this.push("info", msg);
  }
  warn(msg: string): void {
    this.push("warn", msg);
  }
  error(msg: string): void {
    this.push("error", msg);
  }
  /** take returns the captured lines and empties the buffer. */
  take(): LogLine[] {
    return this.lines.splice(0, this.lines.length);
  }
  private push(level: RaftLogLevel, msg: string): void {
    if (this.level === "none" || levelRank[level] < levelRank[this.level]) return;
    if (this.lines.length >= this.maxLines) {
      this.lines.shift();
      this.droppedLines++;
    }
    this.lines.push({ level, msg });
  }
}

const levelRank: Record<RaftLogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** hex formats a node id the way etcd-io/raft's logs do (%x). */
export function hex(id: bigint): string {
  return id.toString(16);
}
