// MemberConfig: the `etcd` command line and ETCD_* environment turned into a validated configuration,
// with etcd 3.6's defaults and error texts.
import { etcdFlagsByName, type EtcdFlag } from "./flag-table.ts";
import { checkValue, parseGoBool, parseGoDurationMs, parseGoFlags, type ParsedFlags } from "./go-flag.ts";

/** MemberConfig is everything the member server needs from its flags. */
export interface MemberConfig {
  name: string;
  dataDir: string;
  walDir: string;
  snapshotCount: number;
  heartbeatMs: number;
  electionMs: number;
  initialElectionTickAdvance: boolean;
  listenPeerUrls: URL[];
  listenClientUrls: URL[];
  listenClientHttpUrls: URL[];
  listenMetricsUrls: URL[];
  advertiseClientUrls: string[];
  initialAdvertisePeerUrls: string[];
  /** initialCluster maps member names to their peer URLs (order as given). */
  initialCluster: Map<string, string[]>;
  initialClusterState: "new" | "existing";
  initialClusterToken: string;
  maxSnapshots: number;
  maxWals: number;
  /** quotaBackendBytes is the effective quota (0 on the command line means the 2 GiB default). */
  quotaBackendBytes: number;
  quotaBackendBytesExplicit: boolean;
  maxTxnOps: number;
  maxRequestBytes: number;
  strictReconfigCheck: boolean;
  preVote: boolean;
  autoCompactionMode: "periodic" | "revision";
  autoCompactionRetention: string;
  forceNewCluster: boolean;
  unsafeNoFsync: boolean;
  logLevel: string;
  logOutputs: string[];
  snapshotCatchupEntries: number;
  maxLearners: number;
  warningApplyDurationMs: number;
  warningUnaryRequestDurationMs: number;
  watchProgressNotifyIntervalMs: number;
  backendBatchIntervalMs: number;
  backendBatchLimit: number;
  enableGrpcGateway: boolean;
  metrics: string;
  tls: { certFile: string; keyFile: string; trustedCaFile: string; clientCertAuth: boolean };
  peerTls: { certFile: string; keyFile: string; trustedCaFile: string; clientCertAuth: boolean };
  /** ignoredFlags are flags given that etcd-lab accepts but does not act on. */
  ignoredFlags: string[];
}

/** DefaultQuotaBytes is etcd's default backend quota: 2 GiB. */
export const DefaultQuotaBytes = 2 * 1024 * 1024 * 1024;
/** MaxQuotaBytes is the size above which etcd warns that the quota exceeds the recommended maximum (8 GiB). */
export const MaxQuotaBytes = 8 * 1024 * 1024 * 1024;

/** ConfigResult is a parsed configuration, or a request to print help/version, plus warnings to log. */
export type ConfigResult =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "config"; config: MemberConfig; envUsed: [string, string][]; warnings: [string, Record<string, string>][] };

/** ConfigError is a configuration error with etcd's text; `exitCode` is what etcd exits with. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    message: string,
    readonly exitCode: number,
    /** usage says the Go flag usage text should follow the message on stderr. */
    readonly usage = false,
    /** zapMsg is the log message etcd prints the error under (`failed to verify flags`). */
    readonly zapMsg = "failed to verify flags",
  ) {
    super(message);
  }
}

/** flagToEnv mirrors etcd's flags.FlagToEnv: `ETCD_` + upper-case name with dashes as underscores. */
export function flagToEnv(name: string): string {
  return "ETCD_" + name.toUpperCase().replace(/-/g, "_");
}

/** parseMemberConfig parses argv (without the program name) and the environment as etcd 3.6 does. */
export function parseMemberConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult {
  let parsed: ParsedFlags;
  try {
    parsed = parseGoFlags(argv, etcdFlagsByName);
  } catch (err) {
    throw new ConfigError((err as Error).message, 2, true);
  }
  if (parsed.help) return { kind: "help" };
  if (parsed.rest.length > 0) throw new ConfigError(`${JSON.stringify(parsed.rest[0])} is not a valid flag`, 1);
  if (parsed.explicit.has("version") && parseGoBool(parsed.explicit.get("version") ?? "") === true) {
    return { kind: "version" };
  }

  const values = new Map(parsed.explicit);
  const envUsed: [string, string][] = [];
  const warnings: [string, Record<string, string>][] = [];
  const known = new Set<string>();
  for (const fl of etcdFlagsByName.values()) {
    const key = flagToEnv(fl.name);
    known.add(key);
    const val = env[key];
    if (parsed.explicit.has(fl.name)) {
      if (val !== undefined && val !== "") {
        throw new ConfigError(
          "conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))",
          1,
          false,
          "conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))",
        );
      }
      continue;
    }
    if (val === undefined || val === "") continue;
    const err = checkValue(fl, val);
    if (err) throw new ConfigError(`invalid value ${JSON.stringify(val)} for ${key}: ${err}`, 1);
    values.set(fl.name, val);
    envUsed.push([key, val]);
  }
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith("ETCD_") && !known.has(k) && !k.startsWith("ETCD_LAB_") && k !== "ETCD_UNSUPPORTED_ARCH") {
      warnings.push(["unrecognized environment variable", { "environment-variable": `${k}=${v ?? ""}` }]);
    }
  }

  const get = (name: string): string => values.get(name) ?? flag(name).def;
  const explicitly = (name: string): boolean => values.has(name);
  const num = (name: string): number => Number(get(name));
  const bool = (name: string): boolean => parseGoBool(get(name)) === true;
  const ms = (name: string): number => parseGoDurationMs(get(name)) ?? 0;
  const urls = (name: string): URL[] =>
    get(name) === ""
      ? []
      : get(name)
          .split(",")
          .map((u) => new URL(u.trim()));
  const strs = (name: string): string[] =>
    get(name) === ""
      ? []
      : get(name)
          .split(",")
          .map((s) => s.trim());

  // etcd's Config.Validate starts with setupLogging.
  const logger = get("logger");
  if (logger === "capnslog") throw new ConfigError("--logger=capnslog is removed in v3.5", 1);
  if (logger !== "zap") throw new ConfigError(`unknown logger option ${JSON.stringify(logger)}`, 1);
  const name = get("name");
  const tick = num("heartbeat-interval");
  const election = num("election-timeout");
  if (tick === 0) throw new ConfigError(`--heartbeat-interval must be >0 (set to ${tick}ms)`, 1);
  if (election === 0) throw new ConfigError(`--election-timeout must be >0 (set to ${election}ms)`, 1);
  if (5 * tick > election) {
    throw new ConfigError(
      `--election-timeout[${election}ms] should be at least as 5 times as --heartbeat-interval[${tick}ms]`,
      1,
    );
  }
  if (election > 50000)
    throw new ConfigError(`--election-timeout[${election}ms] is too long, and should be set less than 50000ms`, 1);
  if (explicitly("listen-client-urls") && !explicitly("advertise-client-urls")) {
    throw new ConfigError("--advertise-client-urls is required when --listen-client-urls is set explicitly", 1);
  }
  const compactionMode = get("auto-compaction-mode");
  if (compactionMode !== "periodic" && compactionMode !== "revision") {
    throw new ConfigError(
      compactionMode === ""
        ? "undefined auto-compaction-mode"
        : `unknown auto-compaction-mode ${JSON.stringify(compactionMode)}`,
      1,
    );
  }

  // The default --initial-cluster follows --name and --initial-advertise-peer-urls (UpdateDefaultClusterFromName).
  const advertisePeer = strs("initial-advertise-peer-urls");
  const initialClusterRaw = explicitly("initial-cluster")
    ? get("initial-cluster")
    : advertisePeer.map((u) => `${name}=${u}`).join(",");
  const initialCluster = parseInitialCluster(initialClusterRaw);

  const quota = Number(get("quota-backend-bytes"));
  const warnApply = explicitly("warning-apply-duration")
    ? ms("warning-apply-duration")
    : ms("experimental-warning-apply-duration");
  const progress = explicitly("watch-progress-notify-interval")
    ? ms("watch-progress-notify-interval")
    : ms("experimental-watch-progress-notify-interval");
  const catchup = explicitly("snapshot-catchup-entries")
    ? num("snapshot-catchup-entries")
    : num("experimental-snapshot-catchup-entries");

  const config: MemberConfig = {
    name,
    dataDir: get("data-dir") || `${name}.etcd`,
    walDir: get("wal-dir"),
    snapshotCount: num("snapshot-count"),
    heartbeatMs: tick,
    electionMs: election,
    initialElectionTickAdvance: bool("initial-election-tick-advance"),
    listenPeerUrls: urls("listen-peer-urls"),
    listenClientUrls: urls("listen-client-urls"),
    listenClientHttpUrls: urls("listen-client-http-urls"),
    listenMetricsUrls: urls("listen-metrics-urls"),
    advertiseClientUrls: strs("advertise-client-urls"),
    initialAdvertisePeerUrls: advertisePeer,
    initialCluster,
    initialClusterState: get("initial-cluster-state") === "existing" ? "existing" : "new",
    initialClusterToken: get("initial-cluster-token"),
    maxSnapshots: num("max-snapshots"),
    maxWals: num("max-wals"),
    quotaBackendBytes: quota <= 0 ? DefaultQuotaBytes : quota,
    quotaBackendBytesExplicit: quota > 0,
    maxTxnOps: num("max-txn-ops"),
    maxRequestBytes: num("max-request-bytes"),
    strictReconfigCheck: bool("strict-reconfig-check"),
    preVote: bool("pre-vote"),
    autoCompactionMode: get("auto-compaction-mode") === "revision" ? "revision" : "periodic",
    autoCompactionRetention: get("auto-compaction-retention"),
    forceNewCluster: bool("force-new-cluster"),
    unsafeNoFsync: bool("unsafe-no-fsync"),
    logLevel: get("log-level"),
    logOutputs: strs("log-outputs"),
    snapshotCatchupEntries: catchup,
    maxLearners: num("max-learners"),
    warningApplyDurationMs: warnApply,
    warningUnaryRequestDurationMs: ms("warning-unary-request-duration"),
    watchProgressNotifyIntervalMs: progress,
    backendBatchIntervalMs: ms("backend-batch-interval") || 100,
    backendBatchLimit: num("backend-batch-limit") || 10000,
    enableGrpcGateway: bool("enable-grpc-gateway"),
    metrics: get("metrics"),
    tls: {
      certFile: get("cert-file"),
      keyFile: get("key-file"),
      trustedCaFile: get("trusted-ca-file"),
      clientCertAuth: bool("client-cert-auth"),
    },
    peerTls: {
      certFile: get("peer-cert-file"),
      keyFile: get("peer-key-file"),
      trustedCaFile: get("peer-trusted-ca-file"),
      clientCertAuth: bool("peer-client-cert-auth"),
    },
    ignoredFlags: [...values.keys()].filter((n) => flag(n).ignoredByLab),
  };
  validateAutoCompaction(config);
  return { kind: "config", config, envUsed, warnings };
}

/** parseInitialCluster parses `name=url,name=url` (a name may repeat for several URLs). */
export function parseInitialCluster(s: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (s.trim() === "") return out;
  for (const part of s.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new ConfigError(`failed to parse initial cluster "${s}": missing = in "${part}"`, 1);
    const name = part.slice(0, eq).trim();
    const url = part.slice(eq + 1).trim();
    const err = checkValue({ name: "initial-cluster", kind: "urls", def: "" }, url);
    if (err) throw new ConfigError(err, 1);
    out.set(name, [...(out.get(name) ?? []), url]);
  }
  return out;
}

function validateAutoCompaction(c: MemberConfig): void {
  const r = c.autoCompactionRetention;
  if (c.autoCompactionMode === "revision") {
    if (!/^[0-9]+$/.test(r)) throw new ConfigError(`strconv.ParseInt: parsing ${JSON.stringify(r)}: invalid syntax`, 1);
  } else if (!/^[0-9]+$/.test(r) && parseGoDurationMs(r) === undefined) {
    throw new ConfigError(`time: invalid duration ${JSON.stringify(r)}`, 1);
  }
}

/** autoCompactionRetentionMs gives the periodic retention (hours when no unit is given, as etcd). */
export function autoCompactionRetentionMs(c: MemberConfig): number {
  const r = c.autoCompactionRetention;
  if (/^[0-9]+$/.test(r)) return Number(r) * 3_600_000;
  return parseGoDurationMs(r) ?? 0;
}

function flag(name: string): EtcdFlag {
  const fl = etcdFlagsByName.get(name);
  if (!fl) throw new Error(`member config: unknown flag ${name}`);
  return fl;
}
