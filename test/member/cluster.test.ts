// One 3-member cluster of ours, taken through what a member must do beyond the KV API: metrics and health
// endpoints on the client and metrics ports, etcd's log lines, the lab's fault channel (a slow disk), the
// auth RPCs' answer, a lagging member catching up through a Raft snapshot, periodic auto compaction, a
// graceful SIGTERM of the leader (leadership handed over first), and quorum loss (`hasleader`, /health).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlClient } from "../../engine/lab-engine/cluster/control-client.ts";
import { ETCD_VERSION } from "../../engine/common/version.ts";
import { EtcdClient } from "../../engine/store/client/index.ts";
import { GrpcChannel, unaryCall } from "../../engine/store/grpc/index.ts";
import { KVService, PutRequest, RangeRequest, RequestOp } from "../../engine/store/proto/gen/etcdserverpb.ts";
import { TestCluster, until } from "./harness.ts";

const enc = new TextEncoder();
let cluster: TestCluster;

function client(names: string[], timeoutMs = 5000): EtcdClient {
  return new EtcdClient({ endpoints: names.map((n) => cluster.endpoint(n)), commandTimeoutMs: timeoutMs });
}

async function leaderName(): Promise<string> {
  for (const m of cluster.running()) {
    const c = client([m.name]);
    try {
      const s = await c.status(cluster.endpoint(m.name));
      if (s.leader === s.header?.memberId) return m.name;
    } finally {
      c.close();
    }
  }
  throw new Error("no leader");
}

/** families parses Prometheus text into name → {type, help, samples}. */
function families(text: string): Map<string, { type: string; help: string; samples: string[] }> {
  const out = new Map<string, { type: string; help: string; samples: string[] }>();
  for (const line of text.split("\n")) {
    const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (m) {
      const f = out.get(m[2] as string) ?? { type: "", help: "", samples: [] };
      if (m[1] === "HELP") f.help = m[3] as string;
      else f.type = m[3] as string;
      out.set(m[2] as string, f);
    } else if (line !== "") {
      const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? "";
      const base = name.replace(/_(bucket|sum|count)$/, "");
      (out.get(name) ?? out.get(base))?.samples.push(line);
    }
  }
  return out;
}

describe("a 3-member cluster of ours", () => {
  beforeAll(async () => {
    cluster = await TestCluster.start({
      kind: "ours",
      size: 3,
      controlSockets: true,
      flags: [
        "--snapshot-count=40",
        "--snapshot-catchup-entries=5",
        "--auto-compaction-mode=periodic",
        "--auto-compaction-retention=2s",
        "--warning-apply-duration=1ms",
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it("exports etcd's metric families with etcd's types, help texts and buckets", async () => {
    const c = client(["m1"]);
    await c.put({ key: enc.encode("metrics"), value: enc.encode("x") });
    c.close();
    // The per-peer round-trip histogram appears with the first probe of each peer (as in etcd).
    const r = await until("a round trip per peer", async () => {
      const got = await cluster.httpGet("m1", "/metrics", "metrics");
      return got.body.match(/^etcd_network_peer_round_trip_time_seconds_count\{/gm)?.length === 2 ? got : undefined;
    });
    expect(r.status).toBe(200);
    const f = families(r.body);
    const want: [string, string, string][] = [
      ["etcd_server_has_leader", "gauge", "Whether or not a leader exists. 1 is existence, 0 is not."],
      ["etcd_server_is_leader", "gauge", "Whether or not this member is a leader. 1 if is, 0 otherwise."],
      ["etcd_server_leader_changes_seen_total", "counter", "The number of leader changes seen."],
      ["etcd_server_proposals_committed_total", "gauge", "The total number of consensus proposals committed."],
      ["etcd_server_proposals_applied_total", "gauge", "The total number of consensus proposals applied."],
      ["etcd_server_proposals_pending", "gauge", "The current number of pending proposals to commit."],
      ["etcd_server_proposals_failed_total", "counter", "The total number of failed proposals seen."],
      [
        "etcd_server_slow_apply_total",
        "counter",
        "The total number of slow apply requests (likely overloaded from slow disk).",
      ],
      ["etcd_server_quota_backend_bytes", "gauge", "Current backend storage quota size in bytes."],
      ["etcd_disk_wal_fsync_duration_seconds", "histogram", "The latency distributions of fsync called by WAL."],
      [
        "etcd_disk_backend_commit_duration_seconds",
        "histogram",
        "The latency distributions of commit called by backend.",
      ],
      [
        "etcd_mvcc_db_total_size_in_bytes",
        "gauge",
        "Total size of the underlying database physically allocated in bytes.",
      ],
      [
        "etcd_mvcc_db_total_size_in_use_in_bytes",
        "gauge",
        "Total size of the underlying database logically in use in bytes.",
      ],
      ["etcd_network_peer_round_trip_time_seconds", "histogram", "Round-Trip-Time histogram between peers"],
      ["etcd_debugging_mvcc_keys_total", "gauge", "Total number of keys."],
      ["grpc_server_started_total", "counter", "Total number of RPCs started on the server."],
      [
        "grpc_server_handled_total",
        "counter",
        "Total number of RPCs completed on the server, regardless of success or failure.",
      ],
      ["grpc_server_msg_received_total", "counter", "Total number of RPC stream messages received on the server."],
      ["grpc_server_msg_sent_total", "counter", "Total number of gRPC stream messages sent by the server."],
      [
        "etcd_network_client_grpc_received_bytes_total",
        "counter",
        "The total number of bytes received from grpc clients.",
      ],
    ];
    for (const [name, type, help] of want) {
      expect(f.get(name), name).toMatchObject({ type, help });
    }
    const buckets = (name: string): string[] =>
      (f.get(name)?.samples ?? [])
        .filter((s) => s.startsWith(`${name}_bucket{`))
        .map((s) => /le="([^"]+)"/.exec(s)?.[1] ?? "")
        .filter((le, i, all) => all.indexOf(le) === i);
    const twice = (start: number, n: number): string[] => [
      ...Array.from({ length: n }, (_, i) => String(Number((start * 2 ** i).toPrecision(12)))),
      "+Inf",
    ];
    expect(buckets("etcd_disk_wal_fsync_duration_seconds")).toEqual(twice(0.001, 14));
    expect(buckets("etcd_disk_backend_commit_duration_seconds")).toEqual(twice(0.001, 14));
    expect(buckets("etcd_network_peer_round_trip_time_seconds")).toEqual(twice(0.0001, 16));
    expect(f.get("etcd_server_has_leader")?.samples).toEqual(["etcd_server_has_leader 1"]);
    expect(f.get("etcd_server_quota_backend_bytes")?.samples).toEqual([
      "etcd_server_quota_backend_bytes 2.147483648e+09",
    ]);
    expect(f.get("etcd_cluster_version")?.samples).toEqual(['etcd_cluster_version{cluster_version="3.6"} 1']);
    expect(f.get("etcd_network_active_peers")?.samples).toHaveLength(2);
    // Labelled families print no bare zero line before their first series (client_golang's *Vec).
    expect(r.body).not.toMatch(/^etcd_server_learner_promote_failures 0$/m);
    expect(r.body).not.toMatch(/^etcd_network_snapshot_send_total_duration_seconds_count 0$/m);
    expect(f.get("etcd_network_peer_round_trip_time_seconds")?.samples.every((s) => s.includes('To="'))).toBe(true);
    // Every method starts at zero, handled_total with every code (etcd's InitializeMetrics); calls count.
    const unary = 'grpc_method="MemberPromote",grpc_service="etcdserverpb.Cluster",grpc_type="unary"';
    expect(f.get("grpc_server_handled_total")?.samples).toContain(
      `grpc_server_handled_total{grpc_code="Unauthenticated",${unary}} 0`,
    );
    expect(f.get("grpc_server_handled_total")?.samples).toHaveLength(43 * 17);
    expect(r.body).toMatch(
      /^grpc_server_handled_total\{grpc_code="OK",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"\} [1-9]/m,
    );
    expect(r.body).toMatch(
      /^grpc_server_started_total\{grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"\} 0$/m,
    );
    // The client port serves /metrics too.
    expect((await cluster.httpGet("m1", "/metrics")).body).toContain("etcd_server_has_leader 1");
  });

  it("answers /health, /livez and /readyz as etcd 3.6 does, on both ports", async () => {
    for (const port of ["client", "metrics"] as const) {
      const h = await cluster.httpGet("m2", "/health", port);
      expect(h).toMatchObject({ status: 200, body: '{"health":"true","reason":""}' });
      expect(await cluster.httpGet("m2", "/livez", port)).toMatchObject({ status: 200, body: "ok\n" });
      const readyz = await cluster.httpGet("m2", "/readyz?verbose", port);
      expect(readyz.status).toBe(200);
      expect(readyz.body.split("\n").sort()).toEqual(
        [
          "",
          "[+]data_corruption ok",
          "[+]linearizable_read ok",
          "[+]non_learner ok",
          "[+]serializable_read ok",
          "ok",
        ].sort(),
      );
      expect(await cluster.httpGet("m2", "/readyz/non_learner", port)).toMatchObject({ status: 200, body: "ok\n" });
      expect(await cluster.httpGet("m2", "/health?serializable=true", port)).toMatchObject({ status: 200 });
    }
    expect((await cluster.httpGet("m2", "/version")).body).toBe(
      `{"etcdserver":"${ETCD_VERSION}","etcdcluster":"3.6.0"}`,
    );
    expect((await cluster.httpGet("m2", "/version", "metrics")).status).toBe(404);
    const metrics = (await cluster.httpGet("m2", "/metrics", "metrics")).body;
    expect(metrics).toMatch(/^etcd_server_health_success [1-9]/m);
    expect(metrics).toMatch(
      /^etcd_server_healthchecks_total\{name="non_learner",status="success",type="readyz"\} [1-9]/m,
    );
  });

  it("fills every Status field etcd 3.6 fills", async () => {
    const c = client(["m2"]);
    try {
      const s = await c.status(cluster.endpoint("m2"));
      expect(s).toMatchObject({
        version: ETCD_VERSION,
        errors: [],
        isLearner: false,
        storageVersion: "3.6.0",
        dbSizeQuota: 2147483648,
      });
      expect(s.leader).not.toBe(0n);
      expect(s.raftTerm).toBeGreaterThanOrEqual(2);
      expect(s.raftAppliedIndex).toBeGreaterThan(0);
      expect(s.raftIndex).toBeGreaterThanOrEqual(s.raftAppliedIndex);
      expect(s.dbSizeInUse).toBeGreaterThan(0);
      expect(s.dbSize).toBeGreaterThanOrEqual(s.dbSizeInUse);
      expect(s.header?.memberId).not.toBe(0n);
    } finally {
      c.close();
    }
  });

  it("answers the auth RPCs with a clear 'not supported yet'", async () => {
    const r = await fetch(`${cluster.clientUrl("m1")}/v3/auth/status`, { method: "POST", body: "{}" });
    expect(r.status).toBe(501);
    expect(await r.json()).toEqual({
      code: 12,
      message: "etcd-lab: authentication is not supported yet (auth RPCs are not implemented)",
    });
  });

  it("serves the JSON gateway: unary calls, etcd's error bodies, watch and lease keep-alive streams", async () => {
    const b64 = (s: string): string => Buffer.from(s).toString("base64");
    const url = (path: string): string => `${cluster.clientUrl("m2")}${path}`;
    const post = async (path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> => {
      const r = await fetch(url(path), { method: "POST", body });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const put = await post("/v3/kv/put", JSON.stringify({ key: b64("gw"), value: b64("v1") }));
    expect(put.status).toBe(200);
    expect(put.json["header"]).toMatchObject({
      revision: expect.stringMatching(/^\d+$/),
      raft_term: expect.any(String),
    });
    const got = await post("/v3/kv/range", JSON.stringify({ key: b64("gw") }));
    expect(got.json).toMatchObject({ kvs: [{ key: b64("gw"), value: b64("v1"), version: "1" }], count: "1" });
    expect(await post("/v3/kv/range", JSON.stringify({ key: b64("gw"), revision: 1e9 }))).toEqual({
      status: 400,
      json: { code: 11, message: "etcdserver: mvcc: required revision is a future revision" },
    });
    expect(await post("/v3/kv/range", "{bad")).toMatchObject({ status: 400, json: { code: 3 } });
    const get = await fetch(url("/v3/kv/range"));
    expect([get.status, await get.json()]).toEqual([405, { code: 12, message: "Method Not Allowed" }]);
    const nope = await fetch(url("/v3/no/such"), { method: "POST", body: "{}" });
    expect([nope.status, await nope.json()]).toEqual([404, { code: 5, message: "Not Found" }]);

    /** stream posts a client stream and returns a reader of the answer's JSON lines. */
    const stream = async (path: string, body: unknown) => {
      const abort = new AbortController();
      const r = await fetch(url(path), { method: "POST", body: JSON.stringify(body), signal: abort.signal });
      const reader = (r.body as ReadableStream<Uint8Array>).getReader();
      let buf = "";
      const next = async (): Promise<Record<string, unknown>> => {
        while (!buf.includes("\n")) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`${path}: stream ended`);
          buf += Buffer.from(value).toString("utf8");
        }
        const line = buf.slice(0, buf.indexOf("\n"));
        buf = buf.slice(line.length + 1);
        return JSON.parse(line) as Record<string, unknown>;
      };
      return { next, close: () => abort.abort() };
    };
    const watch = await stream("/v3/watch", { create_request: { key: b64("gw") } });
    try {
      expect(await watch.next()).toMatchObject({ result: { created: true } });
      await post("/v3/kv/put", JSON.stringify({ key: b64("gw"), value: b64("v2") }));
      expect(await watch.next()).toMatchObject({
        result: { events: [{ kv: { key: b64("gw"), value: b64("v2"), version: "2" } }] },
      });
    } finally {
      watch.close();
    }
    const grant = await post("/v3/lease/grant", JSON.stringify({ TTL: 30 }));
    expect(grant.json).toMatchObject({ ID: expect.stringMatching(/^\d+$/), TTL: "30" });
    const keepAlive = await stream("/v3/lease/keepalive", { ID: grant.json["ID"] });
    try {
      expect(await keepAlive.next()).toMatchObject({ result: { ID: grant.json["ID"], TTL: "30" } });
    } finally {
      keepAlive.close();
    }
  });

  it("logs a slow fdatasync injected through the lab's fault channel, and slow applies", async () => {
    const ctl = new ControlClient(cluster.controlSocket("m2"));
    try {
      await ctl.request({ op: "fsync-delay", ms: 1100 });
      expect((await ctl.status()).fsyncDelayMs).toBe(1100);
      const c = client(["m1"], 15_000);
      await c.put({ key: enc.encode("slow"), value: enc.encode("disk") });
      c.close();
      await until("slow fdatasync in m2's log", async () =>
        /"msg":"slow fdatasync"/.test(cluster.log("m2")) ? true : undefined,
      );
    } finally {
      await ctl.request({ op: "fsync-delay", ms: 0 });
      ctl.close();
    }
    // One apply well over the 1 ms warning on any machine: a txn of 128 puts of 4 KiB (a single small put can
    // apply in under 1 ms once V8 has compiled the path).
    const c = client(["m1"], 15_000);
    try {
      const value = new Uint8Array(4096).fill(0x61);
      const success = Array.from({ length: 128 }, (_, i) =>
        RequestOp.create({ requestPut: PutRequest.create({ key: enc.encode(`slow-apply/${i}`), value }) }),
      );
      await c.txn({ success });
    } finally {
      c.close();
    }
    await until("a slow apply in m1's log", async () =>
      /"msg":"apply request took too long"/.test(cluster.log("m1")) ? true : undefined,
    );
    expect(cluster.log("m1")).toMatch(/"msg":"apply request took too long"/);
  });

  it("logs etcd's leader, membership and compaction lines", async () => {
    const c = client(["m1"], 15_000);
    try {
      // A learner that never starts: added and removed again.
      const added = await until("member add", async () =>
        c.memberAdd([cluster.peerUrl("m1").replace(/\d+$/, "1")], true),
      );
      await c.memberRemove(added.member?.ID ?? 0n);
    } finally {
      c.close();
    }
    await until("auto compaction", async () =>
      cluster.running().some((m) => /"msg":"completed auto periodic compaction"/.test(cluster.log(m.name)))
        ? true
        : undefined,
    );
    const all = cluster.members
      .slice(0, 3)
      .map((m) => cluster.log(m.name))
      .join("");
    for (const msg of [
      "became leader at term",
      "elected leader",
      "starting initial election tick advance",
      "published local member to cluster through raft",
      "added member",
      "removed member",
      "ready to serve client requests",
    ]) {
      expect(all, msg).toContain(msg);
    }
    for (const line of cluster
      .log("m1")
      .split("\n")
      .filter((l) => l !== "")) {
      expect(JSON.parse(line)).toMatchObject({
        level: expect.any(String),
        ts: expect.any(String),
        caller: expect.any(String),
        msg: expect.any(String),
      });
    }
  });

  it("catches a lagging member up through a Raft snapshot", async () => {
    // A follower lags (killing the leader would lose the proposals it had in flight: a put forwarded to it
    // times out, in etcd as here).
    const lead = await leaderName();
    const lagging = ["m3", "m2", "m1"].find((n) => n !== lead) as string;
    const others = ["m1", "m2", "m3"].filter((n) => n !== lagging);
    await cluster.signal(lagging, "SIGKILL");
    const c = client(others, 15_000);
    try {
      for (let i = 0; i < 120; i++) await c.put({ key: enc.encode(`lag-${i}`), value: enc.encode(String(i)) });
      cluster.restart(lagging);
      await cluster.waitHealthy(lagging, 30_000);
      const hashes = await until("equal hashes", async () => {
        const hs = await Promise.all(
          ["m1", "m2", "m3"].map(async (n) => {
            const one = client([n]);
            try {
              return (await one.hashKV(cluster.endpoint(n), 0)).hash;
            } finally {
              one.close();
            }
          }),
        );
        return hs.every((h) => h === hs[0]) ? hs : undefined;
      });
      expect(new Set(hashes).size).toBe(1);
    } finally {
      c.close();
    }
    expect(cluster.log(lagging)).toMatch(/"msg":"applied snapshot"/);
    // It restarts from the snapshot it received (the leader's membership in its data) after a SIGKILL.
    await cluster.signal(lagging, "SIGKILL");
    cluster.restart(lagging);
    await cluster.waitHealthy(lagging, 30_000);
    const again = client([lagging]);
    try {
      expect((await again.range({ key: enc.encode("lag-119") })).kvs[0]?.value).toEqual(enc.encode("119"));
    } finally {
      again.close();
    }
  });

  it("hands leadership over when the leader gets SIGTERM", async () => {
    const lead = await leaderName();
    await cluster.signal(lead, "SIGTERM");
    // Like etcd, the member dies of the signal once it has shut down (a shell sees 143).
    expect(cluster.member(lead).proc?.signalCode).toBe("SIGTERM");
    expect(cluster.log(lead)).toMatch(/"msg":"leadership transfer finished"/);
    const next = await until("a new leader", async () => leaderName());
    expect(next).not.toBe(lead);
    cluster.restart(lead);
    await cluster.waitHealthy(lead, 30_000);
  });

  it("without quorum: no leader for hasleader requests, /health false, /livez true", async () => {
    const survivor = "m1";
    for (const n of ["m2", "m3"]) await cluster.signal(n, "SIGKILL");
    await until("no leader on m1", async () => {
      const r = await cluster.httpGet(survivor, "/health", "metrics");
      return r.body.includes("RAFT NO LEADER") ? r : undefined;
    });
    const h = await cluster.httpGet(survivor, "/health", "metrics");
    expect(h).toMatchObject({ status: 503, body: '{"health":"false","reason":"RAFT NO LEADER"}\n' });
    expect(await cluster.httpGet(survivor, "/livez", "metrics")).toMatchObject({ status: 200, body: "ok\n" });
    expect(cluster.log(survivor)).toMatch(/"msg":"raft\.node: [0-9a-f]+ lost leader [0-9a-f]+ at term \d+"/);
    const metrics = (await cluster.httpGet(survivor, "/metrics", "metrics")).body;
    expect(metrics).toMatch(/^etcd_network_peer_sent_failures_total\{To="[0-9a-f]+"\} [1-9]/m);
    expect(metrics).toMatch(/^# TYPE etcd_network_peer_sent_failures_total counter$/m);
    const channel = new GrpcChannel(cluster.endpoint(survivor));
    try {
      const range = (serializable: boolean, metadata: Record<string, string>) =>
        unaryCall(channel, KVService.Range, RangeRequest.create({ key: enc.encode("lag-1"), serializable }), {
          metadata,
          deadline: Date.now() + 3000,
        });
      await expect(range(false, { hasleader: "true" })).rejects.toMatchObject({
        code: 14,
        message: "etcdserver: no leader",
      });
      expect((await range(true, {})).kvs).toHaveLength(1);
    } finally {
      channel.close();
    }
  });
});
