// The `etcd` server's flags with etcd 3.6's names, defaults and help lines (facts mirrored from
// `etcd --help`, which this table reproduces byte for byte), grouped as its help groups them. Flags marked
// `ignoredByLab` are accepted (so a kubeadm manifest's command line starts) but have no effect here; the
// member logs a warning naming them at start.
import type { FlagKind, FlagSpec } from "./go-flag.ts";

/** EtcdFlag is one server flag with its help text. */
export interface EtcdFlag extends FlagSpec {
  section: string;
  help: string;
  /** shown is the default as `etcd --help` prints it (quoted or bare). */
  shown: string;
  /** ignoredByLab marks flags that are accepted but do nothing in etcd-lab. */
  ignoredByLab?: boolean;
}

function f(
  section: string,
  name: string,
  kind: FlagKind,
  def: string,
  help: string,
  extra: Partial<EtcdFlag> = {},
): EtcdFlag {
  return { section, name, kind, def, help, shown: extra.shown ?? `'${def}'`, ...extra };
}

const M = "Member";
const C = "Clustering";
const S = "Security";
const A = "Auth";
const P = "Profiling and Monitoring";
const L = "Logging";
const T = "Experimental distributed tracing";
const X = "Experimental feature";
const U = "Unsafe feature";
const lab = { ignoredByLab: true } as const;

/**
 * featureGates are the --feature-gates etcd 3.6 knows (KnownFeatures: sorted, with stage and default), as
 * `etcd --help` lists them.
 */
const featureGates = [
  "AllAlpha=true|false (ALPHA - default=false)",
  "AllBeta=true|false (BETA - default=false)",
  "CompactHashCheck=true|false (ALPHA - default=false)",
  "InitialCorruptCheck=true|false (ALPHA - default=false)",
  "LeaseCheckpoint=true|false (ALPHA - default=false)",
  "LeaseCheckpointPersist=true|false (ALPHA - default=false)",
  "SetMemberLocalAddr=true|false (ALPHA - default=false)",
  "StopGRPCServiceOnDefrag=true|false (ALPHA - default=false)",
  "TxnModeWriteWithSharedBuffer=true|false (BETA - default=true)",
];

/** etcdFlags lists every flag the member accepts, in `etcd --help` order. */
export const etcdFlags: readonly EtcdFlag[] = [
  f(M, "name", "string", "default", "Human-readable name for this member."),
  f(M, "data-dir", "string", "", "Path to the data directory.", { shown: "'${name}.etcd'" }),
  f(M, "wal-dir", "string", "", "Path to the dedicated wal directory."),
  f(M, "snapshot-count", "uint", "10000", "Number of committed transactions to trigger a snapshot."),
  f(M, "heartbeat-interval", "uint", "100", "Time (in milliseconds) of a heartbeat interval."),
  f(
    M,
    "election-timeout",
    "uint",
    "1000",
    "Time (in milliseconds) for an election to timeout. See tuning documentation for details.",
  ),
  f(
    M,
    "initial-election-tick-advance",
    "bool",
    "true",
    "Whether to fast-forward initial election ticks on boot for faster election.",
  ),
  f(M, "listen-peer-urls", "urls", "http://localhost:2380", "List of URLs to listen on for peer traffic."),
  f(
    M,
    "listen-client-urls",
    "urls",
    "http://localhost:2379",
    "List of URLs to listen on for client grpc traffic and http as long as --listen-client-http-urls is not specified.",
  ),
  f(
    M,
    "listen-client-http-urls",
    "urls",
    "",
    "List of URLs to listen on for http only client traffic. Enabling this flag removes http services from --listen-client-urls.",
  ),
  f(
    M,
    "max-snapshots",
    "uint",
    "5",
    "Maximum number of snapshot files to retain (0 is unlimited). Deprecated in v3.6 and will be decommissioned in v3.8.",
  ),
  f(M, "max-wals", "uint", "5", "Maximum number of wal files to retain (0 is unlimited)."),
  f(M, "memory-mlock", "bool", "false", "Enable to enforce etcd pages (in particular bbolt) to stay in RAM.", {
    shown: "",
    ...lab,
  }),
  f(
    M,
    "quota-backend-bytes",
    "int",
    "0",
    "Sets the maximum size (in bytes) that the etcd backend database may consume. Exceeding this triggers an alarm and puts etcd in read-only mode. Set to 0 to use the default 2GiB limit.",
  ),
  f(
    M,
    "backend-bbolt-freelist-type",
    "string",
    "map",
    "BackendFreelistType specifies the type of freelist that boltdb backend uses(array and map are supported types).",
    lab,
  ),
  f(
    M,
    "backend-batch-interval",
    "duration",
    "0",
    "BackendBatchInterval is the maximum time before commit the backend transaction.",
    { shown: "''" },
  ),
  f(
    M,
    "backend-batch-limit",
    "uint",
    "0",
    "BackendBatchLimit is the maximum operations before commit the backend transaction.",
  ),
  f(M, "max-txn-ops", "uint", "128", "Maximum number of operations permitted in a transaction."),
  f(M, "max-request-bytes", "uint", "1572864", "Maximum client request size in bytes the server will accept."),
  f(
    M,
    "max-concurrent-streams",
    "uint",
    "4294967295",
    "Maximum concurrent streams that each client can open at a time.",
    { shown: "'math.MaxUint32'" },
  ),
  f(
    M,
    "grpc-keepalive-min-time",
    "duration",
    "5s",
    "Minimum duration interval that a client should wait before pinging server.",
  ),
  f(
    M,
    "grpc-keepalive-interval",
    "duration",
    "2h",
    "Frequency duration of server-to-client ping to check if a connection is alive (0 to disable).",
  ),
  f(
    M,
    "grpc-keepalive-timeout",
    "duration",
    "20s",
    "Additional duration of wait before closing a non-responsive connection (0 to disable).",
  ),
  f(
    M,
    "socket-reuse-port",
    "bool",
    "false",
    "Enable to set socket option SO_REUSEPORT on listeners allowing rebinding of a port already in use.",
    lab,
  ),
  f(
    M,
    "socket-reuse-address",
    "bool",
    "false",
    "Enable to set socket option SO_REUSEADDR on listeners allowing binding to an address in TIME_WAIT state.",
    lab,
  ),
  f(M, "enable-grpc-gateway", "bool", "true", "Enable GRPC gateway.", { shown: "" }),
  f(M, "raft-read-timeout", "duration", "5s", "Read timeout set on each rafthttp connection"),
  f(M, "raft-write-timeout", "duration", "5s", "Write timeout set on each rafthttp connection"),
  f(
    M,
    "feature-gates",
    "string",
    "",
    `A set of key=value pairs that describe server level feature gates for alpha/experimental features. Options are:\n    ${featureGates.join("\n    ")}`,
    lab,
  ),
  f(
    C,
    "initial-advertise-peer-urls",
    "urls",
    "http://localhost:2380",
    "List of this member's peer URLs to advertise to the rest of the cluster.",
  ),
  f(
    C,
    "initial-cluster",
    "string",
    "default=http://localhost:2380",
    "Initial cluster configuration for bootstrapping.",
  ),
  f(
    C,
    "initial-cluster-state",
    "enum",
    "new",
    "Initial cluster state ('new' when bootstrapping a new cluster or 'existing' when adding new members to an existing cluster).\n    After successful initialization (bootstrapping or adding), flag is ignored on restarts",
    { values: ["new", "existing"] },
  ),
  f(
    C,
    "initial-cluster-token",
    "string",
    "etcd-cluster",
    "Initial cluster token for the etcd cluster during bootstrap.\n    Specifying this can protect you from unintended cross-cluster interaction when running multiple clusters.",
  ),
  f(
    C,
    "advertise-client-urls",
    "urls",
    "http://localhost:2379",
    "List of this member's client URLs to advertise to the public.\n    The client URLs advertised should be accessible to machines that talk to etcd cluster. etcd client libraries parse these URLs to connect to the cluster.",
  ),
  f(
    C,
    "discovery",
    "string",
    "",
    "Discovery URL used to bootstrap the cluster for v2 discovery. Will be deprecated in v3.7, and be decommissioned in v3.8.",
    lab,
  ),
  f(C, "discovery-token", "string", "", "V3 discovery: discovery token for the etcd cluster to be bootstrapped.", lab),
  f(C, "discovery-endpoints", "string", "", "V3 discovery: List of gRPC endpoints of the discovery service.", lab),
  f(C, "discovery-dial-timeout", "duration", "2s", "V3 discovery: dial timeout for client connections.", lab),
  f(
    C,
    "discovery-request-timeout",
    "duration",
    "5s",
    "V3 discovery: timeout for discovery requests (excluding dial timeout).",
    lab,
  ),
  f(C, "discovery-keepalive-time", "duration", "2s", "V3 discovery: keepalive time for client connections.", lab),
  f(C, "discovery-keepalive-timeout", "duration", "6s", "V3 discovery: keepalive timeout for client connections.", lab),
  f(
    C,
    "discovery-insecure-transport",
    "bool",
    "true",
    "V3 discovery: disable transport security for client connections.",
    lab,
  ),
  f(
    C,
    "discovery-insecure-skip-tls-verify",
    "bool",
    "false",
    "V3 discovery: skip server certificate verification (CAUTION: this option should be enabled only for testing purposes).",
    lab,
  ),
  f(C, "discovery-cert", "string", "", "V3 discovery: identify secure client using this TLS certificate file.", lab),
  f(C, "discovery-key", "string", "", "V3 discovery: identify secure client using this TLS key file.", lab),
  f(
    C,
    "discovery-cacert",
    "string",
    "",
    "V3 discovery: verify certificates of TLS-enabled secure servers using this CA bundle.",
    lab,
  ),
  f(
    C,
    "discovery-user",
    "string",
    "",
    "V3 discovery: username[:password] for authentication (prompt if password is not supplied).",
    lab,
  ),
  f(
    C,
    "discovery-password",
    "string",
    "",
    "V3 discovery: password for authentication (if this option is used, --user option shouldn't include password).",
    lab,
  ),
  f(
    C,
    "discovery-fallback",
    "enum",
    "exit",
    "Expected behavior ('exit') when discovery services fails. Note that v2 proxy is removed.",
    { values: ["exit", "proxy"], ...lab },
  ),
  f(
    C,
    "discovery-proxy",
    "string",
    "",
    "HTTP proxy to use for traffic to discovery service. Will be deprecated in v3.7, and be decommissioned in v3.8.",
    lab,
  ),
  f(C, "discovery-srv", "string", "", "DNS srv domain used to bootstrap the cluster.", lab),
  f(C, "discovery-srv-name", "string", "", "Suffix to the dns srv name queried when bootstrapping.", lab),
  f(C, "strict-reconfig-check", "bool", "true", "Reject reconfiguration requests that would cause quorum loss."),
  f(
    C,
    "pre-vote",
    "bool",
    "true",
    "Enable the raft Pre-Vote algorithm to prevent disruption when a node that has been partitioned away rejoins the cluster.",
  ),
  f(
    C,
    "auto-compaction-retention",
    "string",
    "0",
    "Auto compaction retention length. 0 means disable auto compaction.",
  ),
  f(
    C,
    "auto-compaction-mode",
    "string",
    "periodic",
    "Interpret 'auto-compaction-retention' one of: periodic|revision. 'periodic' for duration based retention, defaulting to hours if no time unit is provided (e.g. '5m'). 'revision' for revision number based retention.",
  ),
  f(
    C,
    "v2-deprecation",
    "string",
    "write-only",
    "Phase of v2store deprecation. Deprecated and scheduled for removal in v3.8. The default value is enforced, ignoring user input.\n    Supported values:\n      'not-yet'                // Issues a warning if v2store have meaningful content (default in v3.5)\n      'write-only'             // Custom v2 state is not allowed (default in v3.6)\n      'write-only-drop-data'   // Custom v2 state will get DELETED ! (planned default in v3.7)\n      'gone'                   // v2store is not maintained any longer. (planned to cleanup anything related to v2store in v3.8)",
    lab,
  ),
  f(S, "cert-file", "string", "", "Path to the client server TLS cert file."),
  f(S, "key-file", "string", "", "Path to the client server TLS key file."),
  f(S, "client-cert-auth", "bool", "false", "Enable client cert authentication."),
  f(
    S,
    "client-cert-file",
    "string",
    "",
    "Path to an explicit peer client TLS cert file otherwise cert file will be used when client auth is required.",
    lab,
  ),
  f(
    S,
    "client-key-file",
    "string",
    "",
    "Path to an explicit peer client TLS key file otherwise key file will be used when client auth is required.",
    lab,
  ),
  f(S, "client-crl-file", "string", "", "Path to the client certificate revocation list file.", lab),
  f(
    S,
    "client-cert-allowed-hostname",
    "string",
    "",
    "Comma-separated list of SAN hostnames for client cert authentication.",
    lab,
  ),
  f(S, "trusted-ca-file", "string", "", "Path to the client server TLS trusted CA cert file."),
  f(S, "auto-tls", "bool", "false", "Client TLS using generated certificates.", lab),
  f(S, "peer-cert-file", "string", "", "Path to the peer server TLS cert file."),
  f(S, "peer-key-file", "string", "", "Path to the peer server TLS key file."),
  f(S, "peer-client-cert-auth", "bool", "false", "Enable peer client cert authentication."),
  f(
    S,
    "peer-client-cert-file",
    "string",
    "",
    "Path to an explicit peer client TLS cert file otherwise peer cert file will be used when client auth is required.",
    lab,
  ),
  f(
    S,
    "peer-client-key-file",
    "string",
    "",
    "Path to an explicit peer client TLS key file otherwise peer key file will be used when client auth is required.",
    lab,
  ),
  f(S, "peer-trusted-ca-file", "string", "", "Path to the peer server TLS trusted CA file."),
  f(
    S,
    "peer-cert-allowed-cn",
    "string",
    "",
    "Comma-separated list of allowed CNs for inter-peer TLS authentication.",
    lab,
  ),
  f(
    S,
    "peer-cert-allowed-hostname",
    "string",
    "",
    "Comma-separated list of allowed SAN hostnames for inter-peer TLS authentication.",
    lab,
  ),
  f(
    S,
    "peer-auto-tls",
    "bool",
    "false",
    "Peer TLS using self-generated certificates if --peer-key-file and --peer-cert-file are not provided.",
    lab,
  ),
  f(
    S,
    "self-signed-cert-validity",
    "uint",
    "1",
    "The validity period of the client and peer certificates that are automatically generated by etcd when you specify ClientAutoTLS and PeerAutoTLS, the unit is year, and the default is 1.",
    lab,
  ),
  f(S, "peer-crl-file", "string", "", "Path to the peer certificate revocation list file.", lab),
  f(
    S,
    "cipher-suites",
    "string",
    "",
    "Comma-separated list of supported TLS cipher suites between client/server and peers (empty will be auto-populated by Go).",
    lab,
  ),
  f(
    S,
    "cors",
    "string",
    "*",
    "Comma-separated whitelist of origins for CORS, or cross-origin resource sharing, (empty or * means allow all).",
    lab,
  ),
  f(
    S,
    "host-whitelist",
    "string",
    "*",
    "Acceptable hostnames from HTTP client requests, if server is not secure (empty or * means allow all).",
    lab,
  ),
  f(
    S,
    "tls-min-version",
    "string",
    "TLS1.2",
    "Minimum TLS version supported by etcd. Possible values: TLS1.2, TLS1.3.",
  ),
  f(
    S,
    "tls-max-version",
    "string",
    "",
    "Maximum TLS version supported by etcd. Possible values: TLS1.2, TLS1.3 (empty will be auto-populated by Go).",
  ),
  f(
    A,
    "auth-token",
    "string",
    "simple",
    "Specify a v3 authentication token type and its options ('simple' or 'jwt').",
    lab,
  ),
  f(
    A,
    "bcrypt-cost",
    "uint",
    "10",
    "Specify the cost / strength of the bcrypt algorithm for hashing auth passwords. Valid values are between 4 and 31.",
    { shown: "10", ...lab },
  ),
  f(A, "auth-token-ttl", "uint", "300", "Time (in seconds) of the auth-token-ttl.", { shown: "300", ...lab }),
  f(
    P,
    "enable-pprof",
    "bool",
    "false",
    'Enable runtime profiling data via HTTP server. Address is at client URL + "/debug/pprof/"',
    lab,
  ),
  f(
    P,
    "metrics",
    "enum",
    "basic",
    "Set level of detail for exported metrics, specify 'extensive' to include server side grpc histogram metrics.",
    { values: ["basic", "extensive"] },
  ),
  f(
    P,
    "listen-metrics-urls",
    "urls",
    "",
    "List of URLs to listen on for the /metrics and /health endpoints. For https, the client URL TLS info is used.",
  ),
  f(L, "logger", "string", "zap", "Currently only supports 'zap' for structured logging."),
  f(
    L,
    "log-outputs",
    "string",
    "default",
    "Specify 'stdout' or 'stderr' to skip journald logging even when running under systemd, or list of comma separated output targets.",
  ),
  f(L, "log-level", "enum", "info", "Configures log level. Only supports debug, info, warn, error, panic, or fatal.", {
    values: ["debug", "info", "warn", "error", "panic", "fatal"],
  }),
  f(L, "log-format", "enum", "json", "Configures log format. Only supports json, console.", {
    values: ["json", "console"],
  }),
  f(L, "enable-log-rotation", "bool", "false", "Enable log rotation of a single log-outputs file target.", lab),
  f(
    L,
    "log-rotation-config-json",
    "string",
    '{"maxsize": 100, "maxage": 0, "maxbackups": 0, "localtime": false, "compress": false}',
    'Configures log rotation if enabled with a JSON logger config. MaxSize(MB), MaxAge(days,0=no limit), MaxBackups(0=no limit), LocalTime(use computers local time), Compress(gzip)".',
    lab,
  ),
  f(
    L,
    "warning-unary-request-duration",
    "duration",
    "300ms",
    "Set time duration after which a warning is logged if a unary request takes more than this duration.",
  ),
  f(
    T,
    "experimental-enable-distributed-tracing",
    "bool",
    "false",
    "Enable experimental distributed tracing. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--enable-distributed-tracing' instead.",
    lab,
  ),
  f(T, "enable-distributed-tracing", "bool", "false", "Enable distributed tracing.", lab),
  f(
    T,
    "experimental-distributed-tracing-address",
    "string",
    "localhost:4317",
    "Distributed tracing collector address. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--distributed-tracing-address' instead.",
    lab,
  ),
  f(T, "distributed-tracing-address", "string", "localhost:4317", "Distributed tracing collector address.", lab),
  f(
    T,
    "experimental-distributed-tracing-service-name",
    "string",
    "etcd",
    "Distributed tracing service name, must be same across all etcd instances. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--distributed-tracing-service-name' instead.",
    lab,
  ),
  f(
    T,
    "distributed-tracing-service-name",
    "string",
    "etcd",
    "Distributed tracing service name, must be same across all etcd instances.",
    lab,
  ),
  f(
    T,
    "experimental-distributed-tracing-instance-id",
    "string",
    "",
    "Distributed tracing instance ID, must be unique per each etcd instance. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--distributed-tracing-instance-id' instead.",
    lab,
  ),
  f(
    T,
    "distributed-tracing-instance-id",
    "string",
    "",
    "Distributed tracing instance ID, must be unique per each etcd instance.",
    lab,
  ),
  f(
    T,
    "experimental-distributed-tracing-sampling-rate",
    "int",
    "0",
    "Number of samples to collect per million spans for distributed tracing. Disabled by default. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--distributed-tracing-sampling-rate' instead.",
    lab,
  ),
  f(
    T,
    "distributed-tracing-sampling-rate",
    "int",
    "0",
    "Number of samples to collect per million spans for distributed tracing.",
    lab,
  ),
  f(
    X,
    "experimental-initial-corrupt-check",
    "bool",
    "false",
    "Enable to check data corruption before serving any client/peer traffic. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=InitialCorruptCheck=true' instead.",
    lab,
  ),
  f(
    X,
    "experimental-corrupt-check-time",
    "duration",
    "0s",
    "Duration of time between cluster corruption check passes. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--corrupt-check-time' instead.",
    lab,
  ),
  f(X, "corrupt-check-time", "duration", "0s", "Duration of time between cluster corruption check passes.", lab),
  f(
    X,
    "experimental-compact-hash-check-enabled",
    "bool",
    "false",
    "Enable leader to periodically check followers compaction hashes. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=CompactHashCheck=true' instead.",
    lab,
  ),
  f(
    X,
    "experimental-compact-hash-check-time",
    "duration",
    "1m",
    "Duration of time between leader checks followers compaction hashes. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--compact-hash-check-time' instead.",
    lab,
  ),
  f(
    X,
    "compact-hash-check-time",
    "duration",
    "1m",
    "Duration of time between leader checks followers compaction hashes.",
    lab,
  ),
  f(
    X,
    "experimental-enable-lease-checkpoint",
    "bool",
    "false",
    "ExperimentalEnableLeaseCheckpoint enables primary lessor to persist lease remainingTTL to prevent indefinite auto-renewal of long lived leases. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=LeaseCheckpoint=true' instead.",
    lab,
  ),
  f(
    X,
    "experimental-compaction-batch-limit",
    "uint",
    "1000",
    "ExperimentalCompactionBatchLimit sets the maximum revisions deleted in each compaction batch. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--compaction-batch-limit' instead.",
    { shown: "1000" },
  ),
  f(
    X,
    "compaction-batch-limit",
    "uint",
    "1000",
    "CompactionBatchLimit sets the maximum revisions deleted in each compaction batch.",
    { shown: "1000" },
  ),
  f(
    X,
    "experimental-peer-skip-client-san-verification",
    "bool",
    "false",
    "Skip verification of SAN field in client certificate for peer connections. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--peer-skip-client-san-verification' instead.",
    lab,
  ),
  f(
    X,
    "peer-skip-client-san-verification",
    "bool",
    "false",
    "Skip verification of SAN field in client certificate for peer connections.",
    lab,
  ),
  f(
    X,
    "experimental-watch-progress-notify-interval",
    "duration",
    "10m",
    "Duration of periodical watch progress notification. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--watch-progress-notify-interval' instead.",
  ),
  f(X, "watch-progress-notify-interval", "duration", "10m", "Duration of periodical watch progress notification."),
  f(
    X,
    "experimental-warning-apply-duration",
    "duration",
    "100ms",
    "Warning is generated if requests take more than this duration. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--warning-apply-duration' instead.",
  ),
  f(X, "warning-apply-duration", "duration", "100ms", "Warning is generated if requests take more than this duration."),
  f(
    X,
    "experimental-txn-mode-write-with-shared-buffer",
    "bool",
    "true",
    "Enable the write transaction to use a shared buffer in its readonly check operations. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=TxnModeWriteWithSharedBuffer=true' instead.",
    lab,
  ),
  f(
    X,
    "experimental-bootstrap-defrag-threshold-megabytes",
    "uint",
    "",
    "Enable the defrag during etcd server bootstrap on condition that it will free at least the provided threshold of disk space. Needs to be set to non-zero value to take effect. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--bootstrap-defrag-threshold-megabytes' instead.",
    { shown: "", ...lab },
  ),
  f(
    X,
    "bootstrap-defrag-threshold-megabytes",
    "uint",
    "",
    "Enable the defrag during etcd server bootstrap on condition that it will free at least the provided threshold of disk space. Needs to be set to non-zero value to take effect.",
    { shown: "", ...lab },
  ),
  f(
    X,
    "experimental-warning-unary-request-duration",
    "duration",
    "300ms",
    "Set time duration after which a warning is generated if a unary request takes more than this duration. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--warning-unary-request-duration' instead.",
    lab,
  ),
  f(X, "max-learners", "uint", "1", "Set the max number of learner members allowed in the cluster membership."),
  f(
    X,
    "experimental-compaction-sleep-interval",
    "duration",
    "",
    "Sets the sleep interval between each compaction batch. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--compaction-sleep-interval' instead.",
    { shown: "", ...lab },
  ),
  f(X, "compaction-sleep-interval", "duration", "", "Sets the sleep interval between each compaction batch.", {
    shown: "",
    ...lab,
  }),
  f(
    X,
    "experimental-downgrade-check-time",
    "duration",
    "",
    "Duration of time between two downgrade status checks. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--downgrade-check-time' instead.",
    { shown: "", ...lab },
  ),
  f(X, "downgrade-check-time", "duration", "", "Duration of time between two downgrade status checks.", {
    shown: "",
    ...lab,
  }),
  f(
    X,
    "experimental-enable-lease-checkpoint-persist",
    "bool",
    "false",
    "Enable persisting remainingTTL to prevent indefinite auto-renewal of long lived leases. Always enabled in v3.6. Should be used to ensure smooth upgrade from v3.5 clusters with this feature enabled. Requires experimental-enable-lease-checkpoint to be enabled. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=LeaseCheckpointPersist=true' instead.",
    lab,
  ),
  f(
    X,
    "experimental-memory-mlock",
    "bool",
    "",
    "Enable to enforce etcd pages (in particular bbolt) to stay in RAM. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--memory-mlock' instead.",
    { shown: "", ...lab },
  ),
  f(
    X,
    "experimental-snapshot-catchup-entries",
    "uint",
    "5000",
    "Number of entries for a slow follower to catch up after compacting the raft storage entries. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--snapshot-catchup-entries' instead.",
    { shown: "" },
  ),
  f(
    X,
    "snapshot-catchup-entries",
    "uint",
    "5000",
    "Number of entries for a slow follower to catch up after compacting the raft storage entries.",
    { shown: "" },
  ),
  f(
    X,
    "experimental-stop-grpc-service-on-defrag",
    "bool",
    "",
    "Enable etcd gRPC service to stop serving client requests on defragmentation. Deprecated in v3.6 and will be decommissioned in v3.7. Use '--feature-gates=StopGRPCServiceOnDefrag=true' instead.",
    { shown: "", ...lab },
  ),
  f(U, "force-new-cluster", "bool", "false", "Force to create a new one-member cluster."),
  f(U, "unsafe-no-fsync", "bool", "false", "Disables fsync, unsafe, will cause data loss."),
  f(
    "Other",
    "config-file",
    "string",
    "",
    "Path to the server configuration file. Note that if a configuration file is provided, other command line flags and environment variables will be ignored.",
    lab,
  ),
  f("Other", "version", "bool", "false", "Print the version and exit."),
];

/** etcdFlagsByName indexes etcdFlags. */
export const etcdFlagsByName: ReadonlyMap<string, EtcdFlag> = new Map(etcdFlags.map((fl) => [fl.name, fl]));

/** usageLine is what etcd prints to stderr after a flag error (and before `--help`'s flag list). */
export const usageLine = `Usage:

  etcd [flags]
    Start an etcd server.

  etcd --version
    Show the version of etcd.

  etcd -h | --help
    Show the help information about etcd.

  etcd --config-file
    Path to the server configuration file. Note that if a configuration file is provided, other command line flags and environment variables will be ignored.

  etcd gateway
    Run the stateless pass-through etcd TCP connection forwarding proxy.

  etcd grpc-proxy
    Run the stateless etcd v3 gRPC L7 reverse proxy.
`;

/** flagsHelp renders the `etcd --help` flag list from the table, grouped by section. */
export function flagsHelp(): string {
  const out: string[] = [""];
  let section = "";
  for (const fl of etcdFlags) {
    if (fl.section === "Other") continue;
    if (fl.section !== section) {
      if (section !== "") out.push("");
      section = fl.section;
      out.push(`${section}:`);
    }
    out.push(`  --${fl.name}${fl.shown ? ` ${fl.shown}` : ""}`);
    out.push(`    ${fl.help}`);
  }
  out.push("", "CAUTIOUS with unsafe flag! It may break the guarantees given by the consensus protocol!", "");
  return out.join("\n");
}
