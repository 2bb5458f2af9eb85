// Shared helpers of the lab engine's integration tests: a lab server on an OS-assigned port with its own home,
// an API caller, WebSocket clients that record what they receive, and process liveness checks.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { Backend } from "../../engine/lab-engine/types/status-types.ts";
import type { SandboxMode } from "../../engine/lab-engine/sandbox/driver.ts";
import { connectEtcd } from "../../engine/lab-engine/cluster/etcd-connection.ts";
import { loadLabs } from "../../engine/lab-engine/session/lab-loader.ts";
import { startLabServer, type LabServer } from "../../engine/lab-engine/http/server.ts";
import type { LtiConfig } from "../../engine/lab-engine/lti/lti-config.ts";

/** fixtureLabs is the directory of the test-only labs (00-example, 00-other). */
export const fixtureLabs = join(import.meta.dirname, "fixtures", "labs");

/** TestServer is a running lab server plus an API caller. */
export interface TestServer {
  server: LabServer;
  home: string;
  /** api calls the REST API with the server token (as learner `learner`, default "tester"). */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    opts?: { learner?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T; headers: Headers }>;
}

/** startTestServer starts a lab server over `labsDir` with `backend`. */
export async function startTestServer(o: {
  labsDir?: string;
  backend: Backend;
  home?: string;
  maxSessions?: number;
  maxSessionsPerLearner?: number;
  lti?: LtiConfig;
  sandbox?: SandboxMode;
  workshop?: { adminToken?: string };
}): Promise<TestServer> {
  const home = o.home ?? mkdtempSync(join(tmpdir(), "etcd-lab-test-"));
  const labs = (await loadLabs(o.labsDir ?? fixtureLabs, join(home, "cache"))).map((l) => l.lab);
  const server = await startLabServer({
    host: "127.0.0.1",
    port: 0,
    home,
    siteDir: join(home, "no-site"),
    labs,
    backend: o.backend,
    allowedOrigins: [],
    maxSessions: o.maxSessions ?? 20,
    maxSessionsPerLearner: o.maxSessionsPerLearner ?? 3,
    idleTimeoutMs: 0,
    version: "test",
    connect: connectEtcd,
    lti: o.lti,
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
    ...(o.workshop ? { workshop: o.workshop } : {}),
  });
  return {
    server,
    home,
    async api(method, path, body, opts = {}) {
      const res = await fetch(server.url + path, {
        method,
        headers: {
          authorization: `Bearer ${server.token}`,
          "x-etcd-lab-learner": opts.learner ?? "tester",
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...opts.headers,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: "manual",
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON (an HTML page)
      }
      return { status: res.status, body: parsed as never, headers: res.headers };
    },
  };
}

// The prompt marker (ESC ] 6973 ; ... BEL): control characters are what this pattern is about.
// eslint-disable-next-line no-control-regex
const oscMarker = /\x1b\]6973;[^\x07]*\x07/g;

/** Recorder is a WebSocket that keeps its text messages (parsed) and binary bytes. */
export class Recorder {
  readonly messages: Record<string, unknown>[] = [];
  private readonly chunks: Buffer[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) this.chunks.push(buf);
      else this.messages.push(JSON.parse(buf.toString("utf8")) as Record<string, unknown>);
    });
    this.closed = new Promise((resolve) =>
      ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** text is the terminal output so far, without the prompt marker. */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8").replace(oscMarker, "");
  }

  /** of returns the messages of one type. */
  of(type: string): Record<string, unknown>[] {
    return this.messages.filter((m) => m["type"] === type);
  }

  send(msg: unknown): void {
    this.ws.send(JSON.stringify(msg));
  }

  close(): void {
    this.ws.close();
  }
}

/** connectWs opens a WebSocket to the server; it resolves once open (or rejects with the refusal status). */
export function connectWs(server: LabServer, path: string, headers: Record<string, string> = {}): Promise<Recorder> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.url.replace("http", "ws") + path, {
      headers: { authorization: `Bearer ${server.token}`, "x-etcd-lab-learner": "tester", ...headers },
    });
    const rec = new Recorder(ws);
    ws.once("open", () => resolve(rec));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

/** until polls `cond` every 20 ms until it holds or `timeoutMs` passes; returns its last value. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

/** alive says a process exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
