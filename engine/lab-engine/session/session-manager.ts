// All sessions of one lab server: one per learner × lab, capped server-wide and per learner, reaped when
// idle, and all killed when the server stops (or, through the watchdog, when it dies).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Backend } from "../types/status-types.ts";
import { kubeOptions, type LabDefinition } from "../../../lab/lab-format.ts";
import { LabSession, sessionReadyTimeoutMs } from "./session.ts";
import type { Connection } from "../cluster/etcd-connection.ts";
import { shapeKey, WarmPool, type WarmShape } from "./warm-pool.ts";
import { ProgressStore } from "./progress-store.ts";
import { loadParamSecret } from "./params.ts";
import { removeStaleWorkspaces } from "./workspace.ts";
import { Watchdog } from "../cluster/watchdog.ts";
import { DirectDriver, type SessionDriver } from "../sandbox/driver.ts";

/** SessionLimitError is a session refused by a cap (the learner's or the server's); the message says what to close. */
export class SessionLimitError extends Error {
  override name = "SessionLimitError";
  constructor(
    message: string,
    readonly scope: "learner" | "server",
  ) {
    super(message);
  }
}

/** ManagerOptions configure the session manager. */
export interface ManagerOptions {
  home: string;
  labs: LabDefinition[];
  defaultBackend: Backend;
  maxSessions: number;
  maxSessionsPerLearner: number;
  /** idleTimeoutMs destroys sessions nobody touched or watched for this long (0 = never). */
  idleTimeoutMs: number;
  /** idleIgnoresWatchers: a session only watched (a page left open) is idle too; only input keeps it (workshops). */
  idleIgnoresWatchers?: boolean;
  connect(endpoints: string[]): Connection;
  serverUrl(): string;
  /**
   * warmPerShape keeps this many started clusters per cluster shape of the labs (on the default backend),
   * handed to new sessions (see warm-pool.ts); 0 or absent: off.
   */
  warmPerShape?: number;
  /**
   * driver makes each session's sandbox (absent: DirectDriver). The warm pool runs with the direct driver only: its
   * clusters start before their session, so outside any sandbox; with another driver it is off.
   */
  driver?: SessionDriver;
}

/** SessionManager owns every session. */
export class SessionManager {
  readonly guard = new Watchdog();
  readonly progress: ProgressStore;
  /** paramSecret derives perLearner params: kept in <home>/param-secret, so they survive server restarts. */
  private readonly paramSecret: Buffer;
  private readonly sessions = new Map<string, LabSession>();
  private readonly creating = new Map<string, Promise<LabSession>>();
  /** booting are sessions being created: their setup's `lab` commands reach them by token before they are ready. */
  private readonly booting = new Map<string, LabSession>();
  private reaper: NodeJS.Timeout | null = null;
  /** pool holds the warm clusters (empty and idle when ManagerOptions.warmPerShape is 0). */
  readonly pool: WarmPool;
  /** driver makes the sessions' sandboxes. */
  readonly driver: SessionDriver;

  constructor(private readonly o: ManagerOptions) {
    this.driver = o.driver ?? new DirectDriver();
    this.progress = new ProgressStore(join(o.home, "progress"));
    this.paramSecret = loadParamSecret(o.home);
    removeStaleWorkspaces(o.home, this.guard.runId);
    const shapes = new Map(o.labs.map((l) => shapeOf(l, o.defaultBackend)).map((s) => [shapeKey(s), s]));
    this.pool = new WarmPool({
      home: o.home,
      guard: this.guard,
      perShape: this.driver.mode === "direct" ? (o.warmPerShape ?? 0) : 0,
      shapes: [...shapes.values()],
      // Warm clusters count with sessions against the server's cap: the pool refills only below it.
      room: () =>
        this.sessions.size + this.creating.size + this.pool.count() + (this.pool.pending ? 1 : 0) < o.maxSessions,
      readyTimeoutMs: sessionReadyTimeoutMs,
      connect: o.connect,
    });
    this.pool.refill();
    if (o.idleTimeoutMs > 0) {
      this.reaper = setInterval(() => void this.reapIdle(), Math.min(60_000, o.idleTimeoutMs));
      this.reaper.unref();
    }
  }

  /** labs lists the loaded labs. */
  get labs(): LabDefinition[] {
    return this.o.labs;
  }

  /** lab finds a lab by id. */
  lab(id: string): LabDefinition | undefined {
    return this.o.labs.find((l) => l.id === id);
  }

  /** get returns a session (any learner's; callers check ownership). */
  get(id: string): LabSession | undefined {
    return this.sessions.get(id) ?? this.booting.get(id);
  }

  /** byToken finds the session whose shell token this is (a session still being created included). */
  byToken(token: string): LabSession | undefined {
    for (const s of [...this.sessions.values(), ...this.booting.values()]) if (s.token === token) return s;
    return undefined;
  }

  /** ofLearner lists a learner's sessions. */
  ofLearner(learner: string): LabSession[] {
    return [...this.sessions.values()].filter((s) => s.learnerId === learner);
  }

  /** count is how many sessions run or are being created (what the server-wide cap counts, warm pool aside). */
  count(): number {
    return this.sessions.size + this.creating.size;
  }

  /** all lists every session. */
  all(): LabSession[] {
    return [...this.sessions.values()];
  }

  /**
   * open returns the learner's session for a lab, creating it (and waiting until it is ready) if absent.
   * `created` says whether it is new.
   */
  async open(learner: string, labId: string, backend?: Backend): Promise<{ session: LabSession; created: boolean }> {
    const lab = this.lab(labId);
    if (!lab) throw new RangeError(`no lab "${labId}"`);
    const existing = this.ofLearner(learner).find(
      (s) => s.lab.id === labId && s.state !== "destroyed" && s.state !== "failed",
    );
    if (existing) return { session: existing, created: false };
    const key = `${learner}\0${labId}`;
    const pending = this.creating.get(key);
    if (pending) return { session: await pending, created: false };
    const mine =
      this.ofLearner(learner).length + [...this.creating.keys()].filter((k) => k.startsWith(`${learner}\0`)).length;
    if (mine >= this.o.maxSessionsPerLearner) {
      const labs = this.ofLearner(learner).map((s) => `${s.lab.id} (${s.id})`);
      throw new SessionLimitError(
        `you already have ${mine} sessions (the limit is ${this.o.maxSessionsPerLearner}): ${labs.join(", ")}; ` +
          `close one (DELETE /api/sessions/<id>) before opening ${labId}`,
        "learner",
      );
    }
    if (this.sessions.size + this.creating.size >= this.o.maxSessions) {
      throw new SessionLimitError(
        `this lab server runs ${this.o.maxSessions} sessions, its limit (--max-sessions); ` +
          `ask the instructor to raise it or wait for a session to close`,
        "server",
      );
    }
    const chosen = backend ?? this.o.defaultBackend;
    const warm = this.pool.take(shapeOf(lab, chosen));
    const id = warm?.id ?? randomBytes(9).toString("base64url").replace(/[-_]/g, "x");
    const p = LabSession.create(
      { id, lab, learnerId: learner, backend: chosen, home: this.o.home, warm: warm ?? undefined },
      {
        guard: this.guard,
        progress: this.progress,
        connect: this.o.connect,
        serverUrl: this.o.serverUrl,
        paramSecret: this.paramSecret,
        driver: this.driver,
        booting: (s, on) => {
          if (on) this.booting.set(s.id, s);
          else this.booting.delete(s.id);
        },
      },
    );
    this.creating.set(key, p);
    try {
      const session = await p;
      session.touch(); // idle counts from ready: a slow start is not idleness
      this.sessions.set(session.id, session);
      return { session, created: true };
    } finally {
      this.creating.delete(key);
      // Refilled once the new session is up (it counts against the cap from now on), not while it starts: three
      // members starting beside it would take the CPU its shell and setup need.
      this.pool.refill();
    }
  }

  /** destroy ends one session. */
  async destroy(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    await s.destroy();
    this.pool.refill(); // a freed slot may let the pool refill
  }

  /** close ends every session and the watchdog. */
  async close(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    await this.pool.close();
    await Promise.allSettled([...this.creating.values()]);
    await Promise.all([...this.sessions.keys()].map((id) => this.destroy(id)));
    await this.guard.close();
    await this.driver.close();
  }

  private async reapIdle(): Promise<void> {
    const cutoff = Date.now() - this.o.idleTimeoutMs;
    for (const s of this.sessions.values()) {
      const watched = s.active && !this.o.idleIgnoresWatchers;
      if (!watched && s.lastActivity < cutoff && s.state === "ready") await this.destroy(s.id);
    }
  }
}

function shapeOf(lab: LabDefinition, backend: Backend): WarmShape {
  return {
    backend,
    members: lab.cluster.members,
    quotaBackendBytes: lab.cluster.quotaBackendBytes,
    kube: kubeOptions(lab.cluster),
  };
}
