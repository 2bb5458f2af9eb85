import { describe, expect, it } from "vitest";
import { ConfigError, DefaultQuotaBytes, parseMemberConfig, type MemberConfig } from "./config.ts";

function parse(argv: string[], env: Record<string, string> = {}): MemberConfig {
  const r = parseMemberConfig(argv, env);
  if (r.kind !== "config") throw new Error(`expected a config, got ${r.kind}`);
  return r.config;
}

function error(argv: string[], env: Record<string, string> = {}): ConfigError {
  try {
    parseMemberConfig(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("parseMemberConfig", () => {
  it("takes etcd 3.6's defaults", () => {
    const c = parse([]);
    expect(c.name).toBe("default");
    expect(c.dataDir).toBe("default.etcd");
    expect(c.snapshotCount).toBe(10000);
    expect(c.heartbeatMs).toBe(100);
    expect(c.electionMs).toBe(1000);
    expect(c.preVote).toBe(true);
    expect(c.quotaBackendBytes).toBe(DefaultQuotaBytes);
    expect(c.maxRequestBytes).toBe(1572864);
    expect(c.maxTxnOps).toBe(128);
    expect([...c.initialCluster]).toEqual([["default", ["http://localhost:2380"]]]);
  });

  it("parses a lab member's command line in Go flag syntax", () => {
    const c = parse([
      "--name",
      "m1",
      "-data-dir=/tmp/m1.etcd",
      "--listen-client-urls",
      "http://127.0.0.1:2379",
      "--advertise-client-urls=http://127.0.0.1:2379",
      "--listen-peer-urls",
      "http://127.0.0.1:2380",
      "--initial-advertise-peer-urls",
      "http://127.0.0.1:2380",
      "--initial-cluster",
      "m1=http://127.0.0.1:2380,m2=http://127.0.0.1:22380",
      "--initial-cluster-state",
      "existing",
      "--quota-backend-bytes",
      "16777216",
      "--pre-vote=false",
      "--experimental-initial-corrupt-check=true",
    ]);
    expect(c.name).toBe("m1");
    expect(c.dataDir).toBe("/tmp/m1.etcd");
    expect(c.listenClientUrls.map(String)).toEqual(["http://127.0.0.1:2379/"]);
    expect([...c.initialCluster.keys()]).toEqual(["m1", "m2"]);
    expect(c.initialClusterState).toBe("existing");
    expect(c.quotaBackendBytes).toBe(16777216);
    expect(c.preVote).toBe(false);
    expect(c.ignoredFlags).toEqual(["experimental-initial-corrupt-check"]);
  });

  it("reads ETCD_* variables for flags not on the command line", () => {
    const r = parseMemberConfig(["--name", "m1"], { ETCD_SNAPSHOT_COUNT: "500", ETCD_BOGUS: "1" });
    expect(r.kind === "config" && r.config.snapshotCount).toBe(500);
    expect(r.kind === "config" && r.envUsed).toEqual([["ETCD_SNAPSHOT_COUNT", "500"]]);
    expect(r.kind === "config" && r.warnings).toEqual([
      ["unrecognized environment variable", { "environment-variable": "ETCD_BOGUS=1" }],
    ]);
  });

  it("fails with Go's and etcd's texts", () => {
    expect(error(["--bogus"]).message).toBe("flag provided but not defined: -bogus");
    expect(error(["--bogus"]).exitCode).toBe(2);
    expect(error(["--snapshot-count", "x"]).message).toBe('invalid value "x" for flag -snapshot-count: parse error');
    expect(error(["--pre-vote=maybe"]).message).toBe('invalid boolean value "maybe" for -pre-vote: parse error');
    // Durations are time.ParseDuration's (a unit on every number); values are quoted as Go's %q.
    expect(error(["--backend-batch-interval=5"]).message).toBe(
      'invalid value "5" for flag -backend-batch-interval: parse error',
    );
    expect(error(["--backend-batch-interval=1h\x01"]).message).toBe(
      'invalid value "1h\\x01" for flag -backend-batch-interval: parse error',
    );
    expect(error(["--name"]).message).toBe("flag needs an argument: -name");
    expect(error(["--initial-cluster-state", "old"]).message).toBe(
      'invalid value "old" for flag -initial-cluster-state: invalid value',
    );
    expect(error(["--auto-compaction-mode", "weekly"])).toMatchObject({
      message: 'unknown auto-compaction-mode "weekly"',
      exitCode: 1,
      zapMsg: "failed to verify flags",
    });
    expect(error(["--logger", "capnslog"]).message).toBe("--logger=capnslog is removed in v3.5");
    expect(error(["--logger", "json"]).message).toBe('unknown logger option "json"');
    expect(error(["--listen-client-urls", "http://127.0.0.1:2379"]).message).toBe(
      "--advertise-client-urls is required when --listen-client-urls is set explicitly",
    );
    expect(error(["--heartbeat-interval", "300"]).message).toBe(
      "--election-timeout[1000ms] should be at least as 5 times as --heartbeat-interval[300ms]",
    );
    expect(error(["--name", "m1", "extra"]).message).toBe('"extra" is not a valid flag');
    expect(error(["--name", "m1"], { ETCD_NAME: "m2" }).message).toMatch(
      /^conflicting environment variable is shadowed/,
    );
    expect(error(["--listen-peer-urls", "ftp://x:1"]).message).toBe(
      'invalid value "ftp://x:1" for flag -listen-peer-urls: URL scheme must be http, https, unix, or unixs: ftp://x:1',
    );
  });

  it("recognises --help and --version", () => {
    expect(parseMemberConfig(["--help"], {}).kind).toBe("help");
    expect(parseMemberConfig(["-h"], {}).kind).toBe("help");
    expect(parseMemberConfig(["--version"], {}).kind).toBe("version");
  });
});
