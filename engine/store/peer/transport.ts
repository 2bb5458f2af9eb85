// PeerTransport moves Raft messages, snapshot transfers and a few unary calls between members over TCP
// (TLS when --peer-cert-file is set). One outbound connection per peer carries this member's messages and
// requests; the peer answers requests on the same connection. Snapshots use a connection of their own so a
// large transfer never holds up heartbeats. The lab's fault channel plugs in here (drop / delay per peer).
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type SecureContextOptions } from "node:tls";
import { createReadStream, createWriteStream } from "node:fs";
import { rename } from "node:fs/promises";
import { once } from "node:events";
import type { Message, NodeId } from "../raft/raftpb.ts";
import { MessageType } from "../raft/raftpb.ts";
import type { Logger } from "../../go/zap.ts";
import type { Registry } from "../metrics/registry.ts";
import { PeerMetrics } from "./peer-metrics.ts";
import { FrameDecoder, FrameKind, encodeFrame, jsonFrame, parseJsonBody } from "./frame.ts";
import { errnoText } from "../../go/go-errors.ts";
import type { BoundListener } from "../pkg/bound-listener.ts";
import { formatId } from "../pkg/ids.ts";
import { assert } from "../../common/assert.ts";
import type { DropDirection } from "../pkg/control-channel.ts";

/** MessageCodec encodes raft messages for the wire. */
export interface MessageCodec {
  encode(m: Message): Uint8Array;
  decode(b: Uint8Array): Message;
}

/** PeerRequestError is a failed peer call: the remote's error text and, for an etcd error, its gRPC code. */
export class PeerRequestError extends Error {
  override name = "PeerRequestError";
  constructor(
    message: string,
    readonly code: number | undefined,
  ) {
    super(message);
  }
}

/**
 * PeerHandler is the member as its transport sees it: etcd's rafthttp.Raft (Process, IsIDRemoved,
 * ReportUnreachable, ReportSnapshot), plus what etcd's peer HTTP handlers ask of the server beside the Raft
 * streams: a received snapshot db (snapshotHandler), the db to send with a MsgSnap, the peer calls (lease
 * forwarding, promote) and a joining member's GET /members. PeerTransport.start hands it to the transport.
 */
export interface PeerHandler {
  /** process steps a Raft message received from a peer (rafthttp.Raft.Process). */
  process(m: Message): void;
  /** isIDRemoved says whether an id was removed from the cluster; its streams are refused (rafthttp.Raft.IsIDRemoved). */
  isIDRemoved(id: bigint): boolean;
  /** reportUnreachable tells Raft a message to a peer could not be sent (rafthttp.Raft.ReportUnreachable). */
  reportUnreachable(id: NodeId): void;
  /** reportSnapshot tells Raft whether a MsgSnap reached a peer (rafthttp.Raft.ReportSnapshot). */
  reportSnapshot(id: NodeId, ok: boolean): void;
  /** processSnapshot hands over a received MsgSnap whose db is already at `dbPath` (etcd: SaveDBFrom, then Process). */
  processSnapshot(m: Message, dbPath: string): void;
  /** openSnapshot opens the db to send with a MsgSnap (a consistent copy) and says how big it is. */
  openSnapshot(m: Message): Promise<SnapshotSource>;
  /** serve answers a peer's unary call; a rejection sends its text (and a numeric `code`) back. */
  serve(from: bigint, method: string, body: unknown): Promise<unknown>;
  /** clusterInfo answers a joining member's question "who is in this cluster?" (etcd: GET /members). */
  clusterInfo(): { clusterId: bigint; members: ClusterMember[] };
}

/** SnapshotSource is a db file to send with a MsgSnap; release frees it once the transfer is over. */
export interface SnapshotSource {
  path: string;
  bytes: number;
  release: () => void;
}

/** PeerTransportOptions configures the transport (etcd's rafthttp.Transport fields); the member comes in start(). */
export interface PeerTransportOptions {
  localId: NodeId;
  /** clusterId is the cluster this member belongs to, fixed when it boots (rafthttp.Transport.ClusterID). */
  clusterId: bigint;
  /** listeners are the bound peer listeners (bindAll(listen-peer-urls)); the transport serves and closes them. */
  listeners: readonly BoundListener[];
  tls?: SecureContextOptions & { requestCert?: boolean; rejectUnauthorized?: boolean };
  codec: MessageCodec;
  /** snapshotDir is where received snapshot dbs are written (`<index>.snap.db`, as etcd names them). */
  snapshotDir: string;
  logger: Logger;
  registry: Registry;
  nowMs: () => number;
}

/** ClusterMember is a member as a joining member learns it. */
export interface ClusterMember {
  id: bigint;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

interface PeerState {
  id: NodeId;
  name: string;
  urls: string[];
  sock?: Socket | undefined;
  connecting: boolean;
  ready: boolean;
  queue: { frame: Buffer; onFail: () => void }[];
  queuedBytes: number;
  retryTimer?: NodeJS.Timeout | undefined;
  active: boolean;
  activeSinceMs: number;
}

const maxQueueFrames = 4096;
const maxQueueBytes = 64 * 1024 * 1024;
const snapshotChunkBytes = 256 * 1024;
const pingIntervalMs = 1000;
/** redialIntervalMs is how long a lost peer connection waits before dialing again (etcd's rafthttp: 100 ms). */
const redialIntervalMs = 100;

/** PeerTransport connects this member to its peers. */
export class PeerTransport {
  private readonly peers = new Map<bigint, PeerState>();
  private readonly inbound = new Set<Socket>();
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private nextRequestId = 1;
  private closed = false;
  private pingTimer?: NodeJS.Timeout;
  private readonly dropIn = new Set<string>();
  private readonly dropOut = new Set<string>();
  private readonly delayOutMs = new Map<string, number>();
  private readonly m: PeerMetrics;
  private handler: PeerHandler | undefined;

  /**
   * constructor makes a transport that does not serve yet: the member it delivers to is built around it
   * (its Raft driver sends through it), so start hands the member over afterwards. Until then connections
   * to the listeners wait unread (BoundListener).
   */
  constructor(private readonly opts: PeerTransportOptions) {
    this.m = new PeerMetrics(opts.registry);
  }

  /** start binds the member this transport delivers to and serves the peer listeners (once). */
  start(handler: PeerHandler): void {
    assert(this.handler === undefined, "peer transport: started twice");
    this.handler = handler;
    for (const l of this.opts.listeners) l.serve((s) => this.accept(s));
    this.pingTimer = setInterval(() => this.pingAll(), pingIntervalMs);
    this.pingTimer.unref();
  }

  /** raft is the member start() bound (etcd: Transport.Raft); reaching for it before then is a programmer error. */
  private get raft(): PeerHandler {
    assert(this.handler, "peer transport: used before start(handler)");
    return this.handler;
  }

  /**
   * fetchCluster asks peers (tried in order) for the cluster id and member list, as a member started with
   * --initial-cluster-state existing does before it creates its WAL. Each peer that does not answer is
   * logged as etcd logs its failed `GET <peer>/members`; fails like etcd when none answers.
   */
  static async fetchCluster(
    peerUrls: readonly string[],
    timeoutMs: number,
    logger: Logger,
    tls?: SecureContextOptions & { rejectUnauthorized?: boolean },
  ): Promise<{ clusterId: bigint; members: ClusterMember[] }> {
    for (const raw of peerUrls) {
      const url = new URL(raw);
      try {
        return await askCluster(url, timeoutMs, tls);
      } catch (err) {
        const address = `${raw.replace(/\/$/, "")}/members`;
        logger.warn("etcdserver/cluster_util.go:86", "failed to get cluster response", {
          address,
          error: `Get "${address}": ${goDialError(url, err)}`,
        });
      }
    }
    throw new Error(
      "cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs",
    );
  }

  /** addresses returns the bound listener addresses (for tests that bind port 0). */
  addresses(): { host: string; port: number }[] {
    return this.opts.listeners.map((l) => {
      const a = l.address();
      return { host: a.address, port: a.port };
    });
  }

  /** addPeer starts talking to a peer. */
  addPeer(id: NodeId, name: string, urls: string[]): void {
    if (id === this.opts.localId || this.peers.has(id)) return;
    const p: PeerState = {
      id,
      name,
      urls,
      connecting: false,
      ready: false,
      queue: [],
      queuedBytes: 0,
      active: false,
      activeSinceMs: 0,
    };
    this.peers.set(id, p);
    this.opts.logger.info("rafthttp/transport.go:327", "added remote peer", {
      "local-member-id": formatId(this.opts.localId),
      "remote-peer-id": formatId(id),
      "remote-peer-urls": urls,
    });
    this.dial(p);
  }

  /** updatePeer changes a peer's name or URLs (member update, attributes published). */
  updatePeer(id: NodeId, name: string, urls: string[]): void {
    const p = this.peers.get(id);
    if (!p) return this.addPeer(id, name, urls);
    p.name = name;
    if (urls.join(",") !== p.urls.join(",")) {
      p.urls = urls;
      p.sock?.destroy();
    }
  }

  /** removePeer stops talking to a peer. */
  removePeer(id: bigint): void {
    const p = this.peers.get(id);
    if (!p) return;
    this.peers.delete(id);
    if (p.retryTimer) clearTimeout(p.retryTimer);
    p.sock?.destroy();
    this.opts.logger.info("rafthttp/transport.go:369", "removed remote peer", {
      "local-member-id": formatId(this.opts.localId),
      "removed-remote-peer-id": formatId(id),
    });
  }

  /** peerName gives a peer's member name ("" when unknown). */
  peerName(id: bigint): string {
    return this.peers.get(id)?.name ?? "";
  }

  /** activePeerCount counts the peers whose connection is up (rafthttp's ActivePeers). */
  activePeerCount(): number {
    let n = 0;
    for (const p of this.peers.values()) if (p.active) n++;
    return n;
  }

  /** activeSince says since when (ms) a peer's connection has been up, or 0 if it is down. */
  activeSince(id: bigint): number {
    const p = this.peers.get(id);
    return p?.active ? p.activeSinceMs : 0;
  }

  /** send queues raft messages to their peers; MsgSnap goes through a snapshot transfer. */
  send(msgs: readonly Message[]): void {
    // The frames of one call leave in one write per peer (corked until the end of the call): a Ready often
    // holds several messages to the same peer, and each write is a system call that wakes the peer.
    let corked: Socket[] | undefined;
    try {
      for (const m of msgs) {
        const p = this.peers.get(m.to);
        if (!p) continue;
        if (this.dropOut.has(p.name)) continue;
        if (m.type === MessageType.MsgSnap) {
          void this.sendSnapshot(p, m);
          continue;
        }
        if (msgs.length > 1 && p.ready && p.sock && !p.sock.writableCorked) {
          p.sock.cork();
          (corked ??= []).push(p.sock);
        }
        this.enqueue(p, encodeFrame(FrameKind.Raft, this.opts.codec.encode(m)), () =>
          this.raft.reportUnreachable(m.to),
        );
      }
    } finally {
      if (corked) for (const s of corked) s.uncork();
    }
  }

  /** request makes a unary call to a peer (used to reach the leader: lease renew, time-to-live, ...). */
  request(to: bigint, method: string, body: unknown, timeoutMs: number): Promise<unknown> {
    const p = this.peers.get(to);
    if (!p) return Promise.reject(new Error(`peer ${formatId(to)} not found`));
    const id = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error("context deadline exceeded"));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      if (this.dropOut.has(p.name)) return; // lost on the wire; the caller times out
      this.enqueue(p, jsonFrame(FrameKind.Request, { id, method, body }), () => {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new Error(`failed to reach peer ${formatId(to)}`));
      });
    });
  }

  /** drop discards traffic to and/or from the named peers (the lab's partition fault). */
  drop(names: readonly string[], direction: DropDirection): void {
    for (const n of names) {
      if (direction !== "out") this.dropIn.add(n);
      if (direction !== "in") this.dropOut.add(n);
    }
  }

  /** delay holds every frame this member sends to the named peers for `ms` (0 clears). */
  delay(names: readonly string[], ms: number): void {
    for (const n of names) {
      if (ms > 0) this.delayOutMs.set(n, ms);
      else this.delayOutMs.delete(n);
    }
  }

  /** heal clears every drop and delay. */
  heal(): void {
    this.dropIn.clear();
    this.dropOut.clear();
    this.delayOutMs.clear();
  }

  /** faults reports the active faults by peer name. */
  faults(): { drop: { in: string[]; out: string[] }; delayMs: Record<string, number> } {
    return {
      drop: { in: [...this.dropIn].sort(), out: [...this.dropOut].sort() },
      delayMs: Object.fromEntries(this.delayOutMs),
    };
  }

  /** close stops everything. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    for (const p of this.peers.values()) {
      if (p.retryTimer) clearTimeout(p.retryTimer);
      p.sock?.destroy();
    }
    for (const s of this.inbound) s.destroy();
    for (const { timer, reject } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error("transport closed"));
    }
    this.pending.clear();
    await Promise.all(this.opts.listeners.map((l) => l.close()));
  }

  // ---- outbound -------------------------------------------------------------------------------------

  private dial(p: PeerState): void {
    if (this.closed || p.connecting || p.sock || !this.peers.has(p.id)) return;
    const url = new URL(p.urls[0] ?? "");
    p.connecting = true;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port);
    const sock =
      url.protocol === "https:"
        ? tlsConnect({ host, port, ...this.opts.tls, rejectUnauthorized: this.opts.tls?.rejectUnauthorized ?? true })
        : netConnect({ host, port });
    sock.setNoDelay(true);
    p.sock = sock;
    const decoder = new FrameDecoder();
    sock.once(url.protocol === "https:" ? "secureConnect" : "connect", () => {
      sock.write(
        jsonFrame(FrameKind.Hello, {
          clusterId: this.opts.clusterId,
          from: this.opts.localId,
          to: p.id,
          purpose: "stream",
        }),
      );
    });
    sock.on("data", (data: Buffer) => {
      let frames;
      try {
        frames = decoder.push(data);
      } catch {
        sock.destroy();
        return;
      }
      for (const f of frames) this.onOutboundFrame(p, sock, f.kind, f.body);
    });
    sock.on("error", () => {});
    sock.on("close", () => this.onOutboundClosed(p, sock));
  }

  private onOutboundFrame(p: PeerState, sock: Socket, kind: FrameKind, body: Buffer): void {
    if (this.dropIn.has(p.name) && kind !== FrameKind.HelloAck) return;
    switch (kind) {
      case FrameKind.HelloAck: {
        const ack = parseJsonBody<{ ok: boolean; error?: string }>(body);
        if (!ack.ok) {
          this.opts.logger.warn(
            "rafthttp/stream.go:653",
            "request sent was ignored by remote peer due to cluster ID mismatch",
            {
              "remote-peer-id": formatId(p.id),
              error: ack.error ?? "",
            },
          );
          sock.destroy();
          return;
        }
        p.connecting = false;
        p.ready = true;
        this.setActive(p, true);
        this.flush(p);
        return;
      }
      case FrameKind.Response: {
        const r = parseJsonBody<{ id: number; ok: boolean; body?: unknown; error?: string; code?: number }>(body);
        const w = this.pending.get(r.id);
        if (!w) return;
        this.pending.delete(r.id);
        clearTimeout(w.timer);
        if (r.ok) w.resolve(r.body);
        else w.reject(new PeerRequestError(r.error ?? "peer request failed", r.code));
        return;
      }
      case FrameKind.Pong: {
        const sent = body.readDoubleBE(0);
        this.m.rtt.observe(Math.max(0, (this.opts.nowMs() - sent) / 1000), { To: formatId(p.id) });
        return;
      }
      default:
        return;
    }
  }

  private onOutboundClosed(p: PeerState, sock: Socket): void {
    if (p.sock !== sock) return;
    p.sock = undefined;
    p.connecting = false;
    p.ready = false;
    this.setActive(p, false);
    const failed = p.queue;
    p.queue = [];
    p.queuedBytes = 0;
    for (const { onFail } of failed) {
      this.m.sentFailures.inc(1, { To: formatId(p.id) });
      onFail();
    }
    if (this.closed || !this.peers.has(p.id)) return;
    p.retryTimer = setTimeout(() => {
      p.retryTimer = undefined;
      this.dial(p);
    }, redialIntervalMs);
  }

  /**
   * redialNow skips the retry wait of a peer that just connected to us: it is up, so our own connection to
   * it can be made at once (start-up: members come up within a few hundred ms of each other).
   */
  private redialNow(id: bigint): void {
    const p = this.peers.get(id);
    if (!p || p.sock || !p.retryTimer) return;
    clearTimeout(p.retryTimer);
    p.retryTimer = undefined;
    this.dial(p);
  }

  private setActive(p: PeerState, active: boolean): void {
    if (p.active === active) return;
    p.active = active;
    p.activeSinceMs = active ? this.opts.nowMs() : 0;
    const labels = { Local: formatId(this.opts.localId), Remote: formatId(p.id) };
    this.m.activePeers.add(active ? 1 : -1, labels);
    if (!active) this.m.disconnectedPeers.inc(1, labels);
    if (active) {
      this.opts.logger.info("rafthttp/peer_status.go:53", "peer became active", { "peer-id": formatId(p.id) });
    } else {
      this.opts.logger.warn("rafthttp/peer_status.go:66", "peer became inactive (message send to peer failed)", {
        "peer-id": formatId(p.id),
        error: "failed to write to peer: connection closed",
      });
    }
  }

  private enqueue(p: PeerState, frame: Buffer, onFail: () => void): void {
    const delay = this.delayOutMs.get(p.name);
    if (delay !== undefined) {
      setTimeout(() => this.enqueueNow(p, frame, onFail), delay).unref();
      return;
    }
    this.enqueueNow(p, frame, onFail);
  }

  private enqueueNow(p: PeerState, frame: Buffer, onFail: () => void): void {
    if (!this.peers.has(p.id)) return;
    if (!p.ready || !p.sock) {
      if (p.queue.length >= maxQueueFrames || p.queuedBytes + frame.length > maxQueueBytes || !p.sock) {
        this.m.sentFailures.inc(1, { To: formatId(p.id) });
        onFail();
        if (!p.sock) this.dial(p);
        return;
      }
      p.queue.push({ frame, onFail });
      p.queuedBytes += frame.length;
      return;
    }
    if (p.sock.writableLength > maxQueueBytes) {
      this.m.sentFailures.inc(1, { To: formatId(p.id) });
      onFail();
      return;
    }
    p.sock.write(frame);
    this.m.sentBytes.inc(frame.length, { To: formatId(p.id) });
  }

  private flush(p: PeerState): void {
    const q = p.queue;
    p.queue = [];
    p.queuedBytes = 0;
    for (const { frame } of q) {
      p.sock?.write(frame);
      this.m.sentBytes.inc(frame.length, { To: formatId(p.id) });
    }
  }

  private pingAll(): void {
    for (const p of this.peers.values()) {
      if (!p.ready || !p.sock || this.dropOut.has(p.name)) continue;
      const b = Buffer.alloc(8);
      b.writeDoubleBE(this.opts.nowMs(), 0);
      this.enqueue(p, encodeFrame(FrameKind.Ping, b), () => {});
    }
  }

  private async sendSnapshot(p: PeerState, m: Message): Promise<void> {
    let src: SnapshotSource | undefined;
    let ok = false;
    const started = this.opts.nowMs();
    const to = { To: formatId(p.id) };
    this.m.snapshotSendInflights.add(1, to);
    try {
      src = await this.raft.openSnapshot(m);
      ok = await this.transferSnapshot(p, m, src.path, src.bytes);
    } catch (err) {
      this.opts.logger.warn("rafthttp/snapshot_sender.go:129", "failed to send database snapshot", {
        "remote-peer-id": formatId(p.id),
        error: (err as Error).message,
      });
    } finally {
      src?.release();
      this.m.snapshotSendInflights.add(-1, to);
    }
    if (ok) {
      this.m.snapshotSendSuccess.inc(1, to);
      this.m.snapshotSendSeconds.observe((this.opts.nowMs() - started) / 1000, to);
    } else {
      this.m.snapshotSendFailures.inc(1, to);
    }
    if (ok) {
      this.opts.logger.info("rafthttp/snapshot_sender.go:131", "sent database snapshot", {
        "snapshot-index": m.snapshot?.metadata.index ?? 0,
        "remote-peer-id": formatId(p.id),
        bytes: src?.bytes ?? 0,
        took: `${this.opts.nowMs() - started}ms`,
      });
    }
    this.raft.reportSnapshot(p.id, ok);
  }

  private async transferSnapshot(p: PeerState, m: Message, path: string, bytes: number): Promise<boolean> {
    const url = new URL(p.urls[0] ?? "");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const sock =
      url.protocol === "https:"
        ? tlsConnect({ host, port: Number(url.port), ...this.opts.tls })
        : netConnect({ host, port: Number(url.port) });
    try {
      await once(sock, url.protocol === "https:" ? "secureConnect" : "connect");
      sock.write(
        jsonFrame(FrameKind.Hello, {
          clusterId: this.opts.clusterId,
          from: this.opts.localId,
          to: p.id,
          purpose: "snapshot",
        }),
      );
      const msg = this.opts.codec.encode(m);
      const head = Buffer.alloc(8);
      head.writeDoubleBE(bytes, 0);
      sock.write(encodeFrame(FrameKind.SnapBegin, Buffer.concat([head, msg])));
      for await (const chunk of createReadStream(path, { highWaterMark: snapshotChunkBytes })) {
        if (!sock.write(encodeFrame(FrameKind.SnapChunk, chunk as Buffer))) await once(sock, "drain");
      }
      sock.write(encodeFrame(FrameKind.SnapEnd, Buffer.alloc(0)));
      const decoder = new FrameDecoder();
      for await (const data of sock) {
        for (const f of decoder.push(data as Buffer)) {
          if (f.kind === FrameKind.Response) return parseJsonBody<{ ok: boolean }>(f.body).ok;
          if (f.kind === FrameKind.HelloAck && !parseJsonBody<{ ok: boolean }>(f.body).ok) return false;
        }
      }
      return false;
    } finally {
      sock.destroy();
    }
  }

  // ---- inbound --------------------------------------------------------------------------------------

  private accept(sock: Socket): void {
    this.inbound.add(sock);
    sock.setNoDelay(true);
    const decoder = new FrameDecoder();
    let from: bigint | undefined;
    let fromName = "";
    let snap:
      | { msg: Message; tmp: string; out: ReturnType<typeof createWriteStream>; written: number; startMs: number }
      | undefined;
    sock.on("error", () => {});
    sock.on("close", () => {
      this.inbound.delete(sock);
      if (snap && from !== undefined) {
        this.m.snapshotReceiveInflights.add(-1, { From: formatId(from) });
        this.m.snapshotReceiveFailures.inc(1, { From: formatId(from) });
      }
      snap?.out.destroy();
    });
    sock.on("data", (data: Buffer) => {
      let frames;
      try {
        frames = decoder.push(data);
      } catch {
        sock.destroy();
        return;
      }
      for (const { kind, body } of frames) {
        if (from === undefined) {
          if (kind !== FrameKind.Hello) return void sock.destroy();
          const hello = parseJsonBody<{ clusterId: string; from: string; to: string; purpose?: string }>(body);
          if (hello.purpose === "cluster") {
            const info = this.raft.clusterInfo();
            sock.end(jsonFrame(FrameKind.HelloAck, { ok: true, clusterId: info.clusterId, members: info.members }));
            return;
          }
          const err = this.checkHello(BigInt(hello.clusterId), BigInt(hello.from), BigInt(hello.to));
          if (err) {
            sock.end(jsonFrame(FrameKind.HelloAck, { ok: false, error: err }));
            return;
          }
          from = BigInt(hello.from);
          fromName = this.peers.get(from)?.name ?? "";
          sock.write(jsonFrame(FrameKind.HelloAck, { ok: true }));
          this.redialNow(from);
          continue;
        }
        this.m.receivedBytes.inc(body.length + 5, { From: formatId(from) });
        if (this.dropIn.has(fromName || (this.peers.get(from)?.name ?? ""))) continue;
        switch (kind) {
          case FrameKind.Raft:
            this.raft.process(this.opts.codec.decode(body));
            break;
          case FrameKind.Ping:
            sock.write(encodeFrame(FrameKind.Pong, body));
            break;
          case FrameKind.Request: {
            const req = parseJsonBody<{ id: number; method: string; body: unknown }>(body);
            const peerId = from;
            this.raft.serve(peerId, req.method, req.body).then(
              (res) => sock.writable && sock.write(jsonFrame(FrameKind.Response, { id: req.id, ok: true, body: res })),
              (err: { message: string; code?: unknown }) =>
                sock.writable &&
                sock.write(
                  jsonFrame(FrameKind.Response, {
                    id: req.id,
                    ok: false,
                    error: err.message,
                    ...(typeof err.code === "number" ? { code: err.code } : {}),
                  }),
                ),
            );
            break;
          }
          case FrameKind.SnapBegin: {
            const msg = this.opts.codec.decode(body.subarray(8));
            const index = msg.snapshot?.metadata.index ?? 0;
            const tmp = `${this.opts.snapshotDir}/${index.toString(16).padStart(16, "0")}.snap.db.tmp`;
            snap = { msg, tmp, out: createWriteStream(tmp, { mode: 0o600 }), written: 0, startMs: this.opts.nowMs() };
            this.m.snapshotReceiveInflights.add(1, { From: formatId(from) });
            break;
          }
          case FrameKind.SnapChunk:
            if (snap) {
              snap.out.write(body);
              snap.written += body.length;
            }
            break;
          case FrameKind.SnapEnd: {
            const s = snap;
            snap = undefined;
            if (!s) break;
            const labels = { From: formatId(from) };
            s.out.end(() => {
              const final = s.tmp.replace(/\.tmp$/, "");
              rename(s.tmp, final).then(
                () => {
                  this.m.snapshotReceiveInflights.add(-1, labels);
                  this.m.snapshotReceiveSuccess.inc(1, labels);
                  this.m.snapshotReceiveSeconds.observe((this.opts.nowMs() - s.startMs) / 1000, labels);
                  this.raft.processSnapshot(s.msg, final);
                  if (sock.writable) sock.write(jsonFrame(FrameKind.Response, { id: 0, ok: true }));
                },
                () => {
                  this.m.snapshotReceiveInflights.add(-1, labels);
                  this.m.snapshotReceiveFailures.inc(1, labels);
                  if (sock.writable) sock.write(jsonFrame(FrameKind.Response, { id: 0, ok: false }));
                },
              );
            });
            break;
          }
          default:
            break;
        }
      }
    });
  }

  private checkHello(clusterId: bigint, from: bigint, to: bigint): string | undefined {
    const mine = this.opts.clusterId;
    if (mine !== 0n && clusterId !== 0n && clusterId !== mine) {
      this.opts.logger.warn("rafthttp/http.go:500", "request cluster ID mismatch", {
        "local-member-id": formatId(this.opts.localId),
        "local-member-cluster-id": formatId(mine),
        "remote-peer-cluster-id": formatId(clusterId),
      });
      return "cluster ID mismatch";
    }
    if (to !== this.opts.localId)
      return `member id mismatch (want ${formatId(this.opts.localId)}, got ${formatId(to)})`;
    if (this.raft.isIDRemoved(from)) {
      this.opts.logger.warn("rafthttp/http.go:425", "rejected stream from remote peer because it was removed", {
        "local-member-id": formatId(this.opts.localId),
        "remote-peer-id-stream-handler": formatId(this.opts.localId),
        "remote-peer-id-from": formatId(from),
      });
      return "the member has been permanently removed from the cluster";
    }
    return undefined;
  }
}

/** goDialError words a failed request to a peer as Go's net/http client does. */
function goDialError(url: URL, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH") {
    return `dial tcp ${url.host}: connect: ${errnoText(err)}`;
  }
  if (err instanceof Error && err.message === askTimeout) {
    return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
  }
  return errnoText(err);
}

const askTimeout = "timeout";

async function askCluster(
  url: URL,
  timeoutMs: number,
  tls: (SecureContextOptions & { rejectUnauthorized?: boolean }) | undefined,
): Promise<{ clusterId: bigint; members: ClusterMember[] }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port);
  const sock = url.protocol === "https:" ? tlsConnect({ host, port, ...tls }) : netConnect({ host, port });
  const timer = setTimeout(() => sock.destroy(new Error(askTimeout)), timeoutMs);
  try {
    await once(sock, url.protocol === "https:" ? "secureConnect" : "connect");
    sock.write(jsonFrame(FrameKind.Hello, { clusterId: 0n, from: 0n, to: 0n, purpose: "cluster" }));
    const decoder = new FrameDecoder();
    for await (const data of sock) {
      for (const f of decoder.push(data as Buffer)) {
        if (f.kind !== FrameKind.HelloAck) continue;
        const r = parseJsonBody<{
          ok: boolean;
          clusterId: string;
          members: (Omit<ClusterMember, "id"> & { id: string })[];
        }>(f.body);
        if (!r.ok) throw new Error("refused");
        return { clusterId: BigInt(r.clusterId), members: r.members.map((m) => ({ ...m, id: BigInt(m.id) })) };
      }
    }
    throw new Error("connection closed");
  } finally {
    clearTimeout(timer);
    sock.destroy();
  }
}
