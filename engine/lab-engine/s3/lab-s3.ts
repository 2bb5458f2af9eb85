// A session's S3-compatible endpoint (lesson L15's off-cluster backup target): bucket `k8s-etcd-snapshots` on
// 127.0.0.1 (port 0), storage by s3rver (an npm S3 emulator, reached only through a Unix socket in a private
// directory), in front of it our gateway, which verifies AWS Signature V4 and enforces what real S3 would with
// the lab's two keys:
// - the learner's write-only key may PutObject and upload in parts (002's PutObject-only policy); HeadObject,
//   GetObject, ListObjects and DeleteObject get S3's 403 AccessDenied;
// - the engine's reader key may do everything else, except deleting: versioning and object lock are simulated —
//   every write keeps a new version (x-amz-version-id), and every delete is refused with AccessDenied.
// Checks read the bucket through `list()` and `get()`, never through the learner's key.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorXml, operationOf, parseTarget, requestId, statusOf, type S3Operation } from "./s3-api.ts";
import { verifySigV4 } from "./sigv4.ts";
import type { BucketObject } from "../types/check-context.ts";

/** S3Credentials are one access key pair. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** LabS3Options configure an endpoint. */
export interface LabS3Options {
  bucket?: string;
  /** onWrite is told of every new version (the session may log it as an event). */
  onWrite?: (v: BucketObject) => void;
  /** maxBodyBytes bounds one request's body (default 512 MiB). */
  maxBodyBytes?: number;
}

/** The parts of s3rver this module uses (the package ships no types). */
interface S3rverStore {
  putBucket(name: string): Promise<void>;
  copyObject(srcBucket: string, srcKey: string, dstBucket: string, dstKey: string): Promise<unknown>;
  getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
  getObject(bucket: string, key: string): Promise<{ content: NodeJS.ReadableStream | null } | null>;
}
interface S3rverApp {
  store: S3rverStore;
  logger: { close(): void };
  configureBuckets(): Promise<void>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverApp;

/** writerOps are what the learner's write-only key may do (s3:PutObject covers multipart uploads). */
const writerOps: ReadonlySet<S3Operation> = new Set([
  "PutObject",
  "CreateMultipartUpload",
  "UploadPart",
  "CompleteMultipartUpload",
  "AbortMultipartUpload",
]);

/** lockedOps are refused to every key: object lock keeps every version, and the bucket is fixed. */
const lockedOps: ReadonlySet<S3Operation> = new Set([
  "DeleteObject",
  "DeleteObjects",
  "DeleteBucket",
  "CreateBucket",
  "PutBucketSubresource",
  "DeleteBucketSubresource",
]);

/** versioningOps create a new version of their key when they succeed. */
const versioningOps: ReadonlySet<S3Operation> = new Set(["PutObject", "CopyObject", "CompleteMultipartUpload"]);

const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function accessKeyId(prefix: string): string {
  return prefix + [...randomBytes(16)].map((b) => upperAlnum[b % 32]).join("");
}
function newCredentials(prefix: string): S3Credentials {
  return { accessKeyId: accessKeyId(prefix), secretAccessKey: randomBytes(30).toString("base64") };
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on("end", () => resolve(over ? "too large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Forwarded is a backend response, buffered. */
interface Forwarded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** LabS3 is one session's endpoint: start() it, give the learner `learnerEnv()`, read with list()/get(). */
export class LabS3 {
  readonly bucket: string;
  readonly learner: S3Credentials = newCredentials("AKIALAB");
  readonly reader: S3Credentials = newCredentials("AKIAENG");
  private readonly versionsBucket: string;
  private readonly versions: BucketObject[] = [];
  private dir = "";
  private socketPath = "";
  private app: S3rverApp | undefined;
  private backend: Server | undefined;
  private gateway: Server | undefined;
  private port = 0;
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(private readonly opts: LabS3Options) {
    this.bucket = opts.bucket ?? "k8s-etcd-snapshots";
    this.versionsBucket = `${this.bucket}.versions.internal`;
  }

  /** start runs s3rver and the gateway; the endpoint is ready when it resolves. */
  static async start(opts: LabS3Options = {}): Promise<LabS3> {
    const s3 = new LabS3(opts);
    await s3.run();
    return s3;
  }

  private async run(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), "etcd-lab-s3-"));
    this.socketPath = join(this.dir, "s3rver.sock");
    // Loaded on first use (its modules cost about a second), through require: the package ships no types.
    const S3rver = createRequire(import.meta.url)("s3rver") as S3rverCtor;
    const app = new S3rver({
      silent: true,
      directory: join(this.dir, "data"),
      configureBuckets: [{ name: this.bucket }, { name: this.versionsBucket }],
      vhostBuckets: false,
    });
    this.app = app;
    await app.configureBuckets();
    const backend = createServer(app.callback());
    this.backend = backend;
    await new Promise<void>((resolve, reject) => backend.once("error", reject).listen(this.socketPath, resolve));
    const gateway = createServer((req, res) => void this.handle(req, res));
    this.gateway = gateway;
    await new Promise<void>((resolve, reject) => gateway.once("error", reject).listen(0, "127.0.0.1", resolve));
    this.port = (gateway.address() as AddressInfo).port;
  }

  /** url is the endpoint's base URL (http://127.0.0.1:PORT). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** credentials are the two keys: the learner's write-only one and the engine's reader. */
  get credentials(): { learner: S3Credentials; reader: S3Credentials } {
    return { learner: this.learner, reader: this.reader };
  }

  /**
   * learnerEnv is what a lab shell gets so that `rclone ... backup:k8s-etcd-snapshots/...` reaches this endpoint
   * with the learner's key (rclone's RCLONE_CONFIG_<REMOTE>_<OPTION> variables).
   */
  learnerEnv(remote = "BACKUP"): Record<string, string> {
    const p = `RCLONE_CONFIG_${remote}_`;
    return {
      [`${p}TYPE`]: "s3",
      [`${p}PROVIDER`]: "Other",
      [`${p}ACCESS_KEY_ID`]: this.learner.accessKeyId,
      [`${p}SECRET_ACCESS_KEY`]: this.learner.secretAccessKey,
      [`${p}ENDPOINT`]: this.url,
    };
  }

  /** list returns every stored version whose key starts with `prefix`, newest first. */
  list(prefix = ""): BucketObject[] {
    return this.versions.filter((v) => v.key.startsWith(prefix)).reverse();
  }

  /** get reads an object's bytes (its latest version, or `versionId`), or undefined when there is none. */
  async get(key: string, versionId?: string): Promise<Uint8Array | undefined> {
    const store = this.app?.store;
    if (!store) return undefined;
    const v =
      versionId === undefined
        ? this.versions.findLast((x) => x.key === key)
        : this.versions.find((x) => x.key === key && x.versionId === versionId);
    if (!v) return undefined;
    const obj = await store.getObject(this.versionsBucket, v.versionId);
    if (!obj?.content) return undefined;
    const chunks: Buffer[] = [];
    for await (const c of obj.content as AsyncIterable<Buffer>) chunks.push(c);
    return Buffer.concat(chunks);
  }

  /** stop closes the endpoint and deletes its storage. */
  async stop(): Promise<void> {
    const close = (s: Server | undefined) =>
      new Promise<void>((resolve) => {
        if (!s) return resolve();
        s.closeAllConnections();
        s.close(() => resolve());
      });
    await close(this.gateway);
    await this.writes.catch(() => undefined);
    await close(this.backend);
    this.app?.logger.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private refuse(res: ServerResponse, method: string, code: string, message: string, reqId: string): void {
    const status = statusOf(code);
    res.statusCode = status;
    res.setHeader("x-amz-request-id", reqId);
    if (method === "HEAD") {
      res.end();
      return;
    }
    const body = errorXml(code, message, reqId);
    res.setHeader("Content-Type", "application/xml");
    res.setHeader("Content-Length", Buffer.byteLength(body));
    res.end(body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reqId = requestId();
    const method = req.method ?? "GET";
    try {
      const body = await readBody(req, this.opts.maxBodyBytes ?? 512 << 20);
      if (body === "too large") {
        this.refuse(res, method, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size", reqId);
        return;
      }
      const rawUrl = req.url ?? "/";
      const q = rawUrl.indexOf("?");
      const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
      const rawQuery = q < 0 ? "" : rawUrl.slice(q + 1);
      const auth = verifySigV4(
        { method, rawPath, rawQuery, headers: req.headers },
        body,
        (id) => this.secretOf(id),
        Date.now(),
      );
      if ("code" in auth) {
        this.refuse(res, method, auth.code, auth.message, reqId);
        return;
      }
      const by = auth.accessKeyId === this.learner.accessKeyId ? "learner" : "engine";
      const target = parseTarget(rawPath);
      const op = operationOf(method, target, new URLSearchParams(rawQuery), req.headers);
      const allowed =
        target.bucket !== this.versionsBucket &&
        !lockedOps.has(op) &&
        (by === "engine" || (writerOps.has(op) && target.bucket === this.bucket));
      if (op === "CreateBucket" && by === "engine" && target.bucket === this.bucket) {
        // The bucket exists and is the reader's own: us-east-1 answers 200 (rclone's bucket check).
        this.reply(
          res,
          method,
          { status: 200, headers: { location: `/${this.bucket}` }, body: Buffer.alloc(0) },
          reqId,
        );
        return;
      }
      if (!allowed) {
        this.refuse(res, method, "AccessDenied", "Access Denied", reqId);
        return;
      }
      if (versioningOps.has(op)) {
        const job = this.writes.then(() => this.write(req, rawUrl, body, target.bucket, target.key, by));
        this.writes = job.catch(() => undefined);
        this.reply(res, method, await job, reqId);
        return;
      }
      const fwd = await this.forward(req, rawUrl, body);
      if (op === "ListBuckets") fwd.body = this.hideVersionsBucket(fwd.body);
      this.reply(res, method, fwd, reqId);
    } catch {
      if (!res.headersSent)
        this.refuse(res, method, "InternalError", "We encountered an internal error. Please try again.", reqId);
      else res.destroy();
    }
  }

  private secretOf(id: string): string | undefined {
    if (id === this.learner.accessKeyId) return this.learner.secretAccessKey;
    if (id === this.reader.accessKeyId) return this.reader.secretAccessKey;
    return undefined;
  }

  /** write forwards a write and, when it succeeds, keeps the object's new version. */
  private async write(
    req: IncomingMessage,
    rawUrl: string,
    body: Buffer,
    bucket: string,
    key: string,
    by: "learner" | "engine",
  ): Promise<Forwarded> {
    const fwd = await this.forward(req, rawUrl, body);
    const store = this.app?.store;
    if (fwd.status !== 200 || bucket !== this.bucket || !store) return fwd;
    const versionId = randomBytes(24).toString("base64url");
    await store.copyObject(bucket, key, this.versionsBucket, versionId);
    const meta = await store.getMetadata(bucket, key);
    for (const v of this.versions) if (v.key === key) v.isLatest = false;
    const v: BucketObject = {
      key,
      versionId,
      size: Number(meta["content-length"] ?? 0),
      etag: meta["etag"] ?? "",
      lastModifiedMs: Date.parse(meta["last-modified"] ?? "") || Date.now(),
      isLatest: true,
      by,
    };
    this.versions.push(v);
    fwd.headers["x-amz-version-id"] = versionId;
    this.opts.onWrite?.({ ...v });
    return fwd;
  }

  private forward(req: IncomingMessage, rawUrl: string, body: Buffer): Promise<Forwarded> {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (
        v === undefined ||
        ["authorization", "host", "connection", "transfer-encoding", "expect", "content-length"].includes(k)
      )
        continue;
      headers[k] = v;
    }
    headers["host"] = "127.0.0.1";
    headers["content-length"] = String(body.length);
    return new Promise((resolve, reject) => {
      const r = request({ socketPath: this.socketPath, method: req.method, path: rawUrl, headers }, (resp) => {
        const chunks: Buffer[] = [];
        resp.on("data", (c: Buffer) => chunks.push(c));
        resp.on("end", () =>
          resolve({ status: resp.statusCode ?? 500, headers: { ...resp.headers }, body: Buffer.concat(chunks) }),
        );
        resp.on("error", reject);
      });
      r.on("error", reject);
      r.end(body);
    });
  }

  private hideVersionsBucket(xml: Buffer): Buffer {
    const name = this.versionsBucket.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return Buffer.from(xml.toString("utf8").replace(new RegExp(`<Bucket><Name>${name}</Name>.*?</Bucket>`, "s"), ""));
  }

  private reply(res: ServerResponse, method: string, fwd: Forwarded, reqId: string): void {
    res.statusCode = fwd.status;
    for (const [k, v] of Object.entries(fwd.headers)) {
      if (v === undefined || ["connection", "transfer-encoding", "keep-alive", "content-length"].includes(k)) continue;
      res.setHeader(k, v);
    }
    res.setHeader("x-amz-request-id", reqId);
    // A HEAD answers with the object's length and no body.
    const length = method === "HEAD" ? fwd.headers["content-length"] : String(fwd.body.length);
    if (length !== undefined && fwd.status !== 304 && fwd.status !== 204) res.setHeader("content-length", length);
    res.end(fwd.body);
  }
}
