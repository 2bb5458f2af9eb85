import { describe, expect, it } from "vitest";
import { ZapLogger, formatGoDuration, formatZapTime } from "./zap.ts";

describe("ZapLogger", () => {
  it("prints zap-shaped JSON lines with fields in order and filters by level", () => {
    const lines: string[] = [];
    const log = new ZapLogger({
      level: "info",
      write: (l) => lines.push(l),
      nowMs: () => Date.UTC(2026, 10, 30, 4, 25, 50, 955) + 0.123,
    });
    log.debug("x.go:1", "hidden");
    log.info("etcdserver/server.go:2069", "published local member to cluster through raft", {
      "local-member-id": "6d630bb38e96feb3",
      "request-path": "/0/members/6d630bb38e96feb3/attributes",
      "cluster-id": "8376c9536ea3105",
      "publish-timeout": "7s",
      skipped: undefined,
      urls: ["http://127.0.0.1:2379"],
      n: 3n,
    });
    expect(lines).toEqual([
      '{"level":"info","ts":"2026-11-30T04:25:50.955123Z","caller":"etcdserver/server.go:2069","msg":"published local member to cluster through raft","local-member-id":"6d630bb38e96feb3","request-path":"/0/members/6d630bb38e96feb3/attributes","cluster-id":"8376c9536ea3105","publish-timeout":"7s","urls":["http://127.0.0.1:2379"],"n":3}\n',
    ]);
  });
});

describe("ZapLogger.named", () => {
  it("prints the logger name between ts and caller, as zap does for etcd's raft lines", () => {
    const lines: string[] = [];
    const log = new ZapLogger({ level: "info", write: (l) => lines.push(l), nowMs: () => 0 }).named("raft");
    log.info("etcdserver/zap_raft.go:77", "8e9e05c52164694d became leader at term 2");
    expect(lines[0]).toBe(
      '{"level":"info","ts":"1970-01-01T00:00:00.000000Z","logger":"raft","caller":"etcdserver/zap_raft.go:77","msg":"8e9e05c52164694d became leader at term 2"}\n',
    );
  });
});

describe("ZapLogger encode", () => {
  it("hands the injected encoder each entry, undefined fields dropped, panic included", () => {
    const lines: string[] = [];
    const log = new ZapLogger({
      level: "warn",
      write: (l) => lines.push(l),
      nowMs: () => 7,
      encode: (e) => `${e.level}|${e.tsMs}|${e.name ?? "-"}|${e.caller}|${e.msg}|${JSON.stringify(e.fields)}\n`,
    });
    log.info("a.go:1", "below the level");
    log.panic("backend/backend.go:205", "failed to open database", { path: "db", skipped: undefined });
    log.named("x").warn("b.go:2", "named");
    expect(lines).toEqual([
      'panic|7|-|backend/backend.go:205|failed to open database|[["path","db"]]\n',
      "warn|7|x|b.go:2|named|[]\n",
    ]);
  });
});

describe("formatZapTime", () => {
  it("uses microsecond precision and Z", () => {
    expect(formatZapTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe("2026-01-02T03:04:05.006000Z");
  });
});

describe("formatGoDuration", () => {
  it("matches Go's time.Duration.String()", () => {
    expect(formatGoDuration(2.194594)).toBe("2.194594ms");
    expect(formatGoDuration(1500)).toBe("1.5s");
    expect(formatGoDuration(60000)).toBe("1m0s");
    expect(formatGoDuration(0)).toBe("0s");
    expect(formatGoDuration(100)).toBe("100ms");
    expect(formatGoDuration(0.0015)).toBe("1.5µs");
    expect(formatGoDuration(0.0009)).toBe("900ns");
    expect(formatGoDuration(3723_500)).toBe("1h2m3.5s");
  });
});
