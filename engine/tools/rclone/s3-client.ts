// The S3 calls rclone's s3 backend makes (path-style, as provider Other uses), signed with SigV4, and S3's errors
// as aws-sdk-go v1 prints them: `AccessDenied: Access Denied` and, on the next line, `status code: 403, request
// id: …, host id: …`; a HEAD has no body, so its 403 prints `Forbidden: Forbidden`.

import { createHash } from "node:crypto";
import { uriEncode } from "../../aws/sigv4.ts";
import { queryString, signRequest } from "./sigv4.ts";

/** S3Remote is a configured s3 remote's connection settings. */
export interface S3Remote {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** AwsError is a failed S3 call, printed as the SDK prints a RequestFailure. */
export class AwsError extends Error {
  override name = "AwsError";
  constructor(
    readonly code: string,
    readonly awsMessage: string,
    readonly status: number,
    readonly requestId: string,
    readonly hostId: string,
  ) {
    super(`${code}: ${awsMessage}\n\tstatus code: ${status}, request id: ${requestId}, host id: ${hostId}`);
  }
}

/** NetworkError is a request that got no HTTP answer, worded as Go's net/http client words it. */
export class NetworkError extends Error {
  override name = "NetworkError";
}

/** ListedObject is one object of a listing. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: string;
  etag: string;
}

/** Listing is one page of ListObjects. */
export interface Listing {
  objects: ListedObject[];
  prefixes: string[];
  nextMarker: string | undefined;
}

const statusText: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

function xmlText(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? unescapeXml(m[1] as string) : undefined;
}

function xmlAll(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1] as string);
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, "&");
}

/** Response is an answered S3 call. */
export interface S3Response {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** S3Client makes one remote's S3 calls. */
export class S3Client {
  constructor(
    private readonly remote: S3Remote,
    private readonly nowMs: () => number,
  ) {}

  /** call sends a signed request and returns the answer, or throws AwsError for a status ≥ 300. */
  async call(
    method: string,
    bucket: string,
    key: string,
    opts: { query?: [string, string][]; headers?: Record<string, string>; body?: Uint8Array } = {},
  ): Promise<S3Response> {
    const base = new URL(
      this.remote.endpoint.includes("://") ? this.remote.endpoint : `https://${this.remote.endpoint}`,
    );
    const path = `${base.pathname.replace(/\/+$/, "")}/${bucket === "" ? "" : uriEncode(bucket, true)}${key === "" ? "" : `/${uriEncode(key, true)}`}`;
    const query = opts.query ?? [];
    const body = opts.body ?? new Uint8Array();
    const headers = signRequest({
      method,
      host: base.host,
      path,
      query,
      headers: opts.headers ?? {},
      body,
      accessKeyId: this.remote.accessKeyId,
      secretAccessKey: this.remote.secretAccessKey,
      region: this.remote.region,
      nowMs: this.nowMs(),
    });
    delete headers["host"];
    const qs = queryString(query);
    const url = `${base.protocol}//${base.host}${path}${qs ? `?${qs}` : ""}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(method === "GET" || method === "HEAD" ? {} : { body }),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        cause?.code === "ECONNREFUSED"
          ? `dial tcp ${base.host}: connect: connection refused`
          : (cause?.message ?? String(e));
      throw new NetworkError(
        `RequestError: send request failed\ncaused by: ${method[0]}${method.slice(1).toLowerCase()} "${url}": ${reason}`,
      );
    }
    const buf = Buffer.from(await res.arrayBuffer());
    if (res.status >= 300) {
      const xml = buf.toString("utf8");
      const code = xmlText(xml, "Code") ?? (statusText[res.status] ?? String(res.status)).replace(/ /g, "");
      const message = xmlText(xml, "Message") ?? statusText[res.status] ?? "";
      throw new AwsError(
        code,
        message,
        res.status,
        res.headers.get("x-amz-request-id") ?? "",
        res.headers.get("x-amz-id-2") ?? "",
      );
    }
    return { status: res.status, headers: res.headers, body: buf };
  }

  /** head is HeadObject: the object's size and metadata, or undefined when it does not exist (404). */
  async head(
    bucket: string,
    key: string,
  ): Promise<{ size: number; etag: string; mtime: string | undefined } | undefined> {
    try {
      const r = await this.call("HEAD", bucket, key);
      return {
        size: Number(r.headers.get("content-length") ?? 0),
        etag: (r.headers.get("etag") ?? "").replace(/"/g, ""),
        mtime: r.headers.get("x-amz-meta-mtime") ?? undefined,
      };
    } catch (e) {
      if (e instanceof AwsError && e.status === 404) return undefined;
      throw e;
    }
  }

  /** createBucket is CreateBucket; an existing bucket of ours is no error (rclone's makeBucket). */
  async createBucket(bucket: string): Promise<void> {
    try {
      await this.call("PUT", bucket, "");
    } catch (e) {
      if (e instanceof AwsError && (e.code === "BucketAlreadyOwnedByYou" || e.code === "BucketAlreadyExists")) return;
      throw e;
    }
  }

  /** putObject is a single-part PutObject with rclone's headers (Content-MD5, the mtime metadata). */
  async putObject(bucket: string, key: string, body: Uint8Array, mtimeMs: number, contentType: string): Promise<void> {
    await this.call("PUT", bucket, key, {
      body,
      headers: {
        "content-type": contentType,
        "content-md5": createHash("md5").update(body).digest("base64"),
        "x-amz-meta-mtime": formatMtime(mtimeMs),
      },
    });
  }

  /** multipartUpload uploads `body` in parts of `partSize` (rclone's streaming upload). */
  async multipartUpload(
    bucket: string,
    key: string,
    body: Uint8Array,
    partSize: number,
    mtimeMs: number,
    contentType: string,
  ): Promise<void> {
    const init = await this.call("POST", bucket, key, {
      query: [["uploads", ""]],
      headers: { "content-type": contentType, "x-amz-meta-mtime": formatMtime(mtimeMs) },
    });
    const uploadId = xmlText(init.body.toString("utf8"), "UploadId") ?? "";
    const parts: string[] = [];
    try {
      for (let off = 0, n = 1; off < body.length || n === 1; off += partSize, n++) {
        const chunk = body.subarray(off, Math.min(off + partSize, body.length));
        const r = await this.call("PUT", bucket, key, {
          query: [
            ["partNumber", String(n)],
            ["uploadId", uploadId],
          ],
          body: chunk,
          headers: { "content-md5": createHash("md5").update(chunk).digest("base64") },
        });
        parts.push(`<Part><ETag>${r.headers.get("etag") ?? ""}</ETag><PartNumber>${n}</PartNumber></Part>`);
        if (off + partSize >= body.length) break;
      }
      const xml = `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join("")}</CompleteMultipartUpload>`;
      await this.call("POST", bucket, key, { query: [["uploadId", uploadId]], body: Buffer.from(xml) });
    } catch (e) {
      await this.call("DELETE", bucket, key, { query: [["uploadId", uploadId]] }).catch(() => undefined);
      throw e;
    }
  }

  /** listObjects is one page of ListObjects (v1, as rclone uses it for provider Other). */
  async listObjects(bucket: string, prefix: string, delimiter: string, marker: string | undefined): Promise<Listing> {
    const query: [string, string][] = [
      ["max-keys", "1000"],
      ["prefix", prefix],
    ];
    if (delimiter) query.push(["delimiter", delimiter]);
    if (marker !== undefined) query.push(["marker", marker]);
    const r = await this.call("GET", bucket, "", { query });
    const xml = r.body.toString("utf8");
    const objects = xmlAll(xml, "Contents").map((c) => ({
      key: xmlText(c, "Key") ?? "",
      size: Number(xmlText(c, "Size") ?? 0),
      lastModified: xmlText(c, "LastModified") ?? "",
      etag: (xmlText(c, "ETag") ?? "").replace(/"/g, ""),
    }));
    const prefixes = xmlAll(xml, "CommonPrefixes").map((c) => xmlText(c, "Prefix") ?? "");
    const truncated = xmlText(xml, "IsTruncated") === "true";
    const last = [...objects.map((o) => o.key), ...prefixes].sort().pop();
    return { objects, prefixes, nextMarker: truncated ? (xmlText(xml, "NextMarker") ?? last) : undefined };
  }

  /** listBuckets is ListBuckets: the bucket names. */
  async listBuckets(): Promise<{ name: string; created: string }[]> {
    const r = await this.call("GET", "", "");
    return xmlAll(r.body.toString("utf8"), "Bucket").map((b) => ({
      name: xmlText(b, "Name") ?? "",
      created: xmlText(b, "CreationDate") ?? "",
    }));
  }

  /** getObject is GetObject: the object's bytes. */
  async getObject(bucket: string, key: string): Promise<Buffer> {
    return (await this.call("GET", bucket, key)).body;
  }
}

/** formatMtime is rclone's X-Amz-Meta-Mtime value: seconds and nanoseconds since the epoch. */
export function formatMtime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${s}.${String((ms - s * 1000) * 1_000_000).padStart(9, "0")}`;
}
