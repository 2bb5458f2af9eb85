// Tests of the lab's S3 endpoint with a SigV4 client built from sigv4.ts: the learner's key writes (single and
// multipart) and is refused everything else with S3's 403 AccessDenied; the reader lists and reads; deletes are
// refused to both; every write keeps a version; a wrong secret, a tampered request or body, an unknown key and
// an unsigned request are rejected. Real rclone against this endpoint: engine/tools/rclone/rclone.test.ts.

import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LabS3, type S3Credentials } from "./lab-s3.ts";
import { canonicalRequest } from "./sigv4.ts";
import { signingKey, stringToSign } from "../../aws/sigv4.ts";

let s3: LabS3;
const writes: string[] = [];

interface Sent {
  status: number;
  body: string;
  headers: Headers;
}

/** send signs a request as an S3 client does (path style, region us-east-1) and sends it. */
async function send(
  cred: S3Credentials,
  method: string,
  path: string,
  opts: { query?: string; body?: string; unsigned?: boolean; tamper?: (h: Record<string, string>) => void } = {},
): Promise<Sent> {
  const body = Buffer.from(opts.body ?? "");
  const amzDate = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const date = amzDate.slice(0, 8);
  const host = new URL(s3.url).host;
  const payload = opts.unsigned ? "UNSIGNED-PAYLOAD" : createHash("sha256").update(body).digest("hex");
  const headers: Record<string, string> = { host, "x-amz-content-sha256": payload, "x-amz-date": amzDate };
  const signed = ["host", "x-amz-content-sha256", "x-amz-date"];
  const canonical = canonicalRequest({ method, rawPath: path, rawQuery: opts.query ?? "", headers }, signed, payload);
  const scope = `${date}/us-east-1/s3/aws4_request`;
  const sig = createHmac("sha256", signingKey(cred.secretAccessKey, date, "us-east-1", "s3"))
    .update(stringToSign(amzDate, scope, canonical))
    .digest("hex");
  headers["authorization"] =
    `AWS4-HMAC-SHA256 Credential=${cred.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${sig}`;
  opts.tamper?.(headers);
  delete headers["host"];
  const url = `${s3.url}${path}${opts.query ? `?${opts.query}` : ""}`;
  const res = await fetch(url, { method, headers, ...(method === "GET" || method === "HEAD" ? {} : { body }) });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

const code = (r: Sent) => /<Code>([^<]+)<\/Code>/.exec(r.body)?.[1];

beforeAll(async () => {
  s3 = await LabS3.start({ onWrite: (v) => writes.push(`${v.by}:${v.key}`) });
});
afterAll(async () => {
  await s3.stop();
});

describe("LabS3", () => {
  it("lets the learner's key put objects and refuses it everything else with 403 AccessDenied", async () => {
    const w = s3.learner;
    expect(
      (await send(w, "PUT", "/k8s-etcd-snapshots/snap-1.db.age", { body: "age-encryption.org/v1\nfirst" })).status,
    ).toBe(200);
    const second = await send(w, "PUT", "/k8s-etcd-snapshots/snap-1.db.age", {
      body: "age-encryption.org/v1\nsecond",
      unsigned: true,
    });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-amz-version-id")).toMatch(/^[\w-]{32}$/);
    for (const [method, path, query] of [
      ["HEAD", "/k8s-etcd-snapshots/snap-1.db.age", ""],
      ["GET", "/k8s-etcd-snapshots/snap-1.db.age", ""],
      ["GET", "/k8s-etcd-snapshots", "list-type=2"],
      ["GET", "/k8s-etcd-snapshots", ""],
      ["DELETE", "/k8s-etcd-snapshots/snap-1.db.age", ""],
      ["GET", "/", ""],
      ["PUT", "/other-bucket/x", ""],
    ] as const) {
      const r = await send(w, method, path, { query });
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 403 });
      if (method !== "HEAD") {
        expect(code(r)).toBe("AccessDenied");
        expect(r.body).toMatch(
          /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>AccessDenied<\/Code><Message>Access Denied<\/Message><RequestId>/,
        );
      }
    }
  });

  it("takes multipart uploads from the learner's key", async () => {
    const w = s3.learner;
    const init = await send(w, "POST", "/k8s-etcd-snapshots/pki.tar.gz.age", { query: "uploads=" });
    expect(init.status).toBe(200);
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(init.body)?.[1] ?? "";
    const part = await send(w, "PUT", "/k8s-etcd-snapshots/pki.tar.gz.age", {
      query: `partNumber=1&uploadId=${uploadId}`,
      body: "age-encryption.org/v1\npki",
    });
    expect(part.status).toBe(200);
    const etag = part.headers.get("etag") ?? "";
    const done = await send(w, "POST", "/k8s-etcd-snapshots/pki.tar.gz.age", {
      query: `uploadId=${uploadId}`,
      body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`,
    });
    expect(done.status).toBe(200);
    expect(Buffer.from((await s3.get("pki.tar.gz.age")) ?? []).toString()).toBe("age-encryption.org/v1\npki");
  });

  it("lets the reader list and read, keeps every version, and refuses deletes to everyone", async () => {
    const r = s3.reader;
    const list = await send(r, "GET", "/k8s-etcd-snapshots", { query: "list-type=2" });
    expect(list.status).toBe(200);
    expect(list.body).toContain("<Key>snap-1.db.age</Key>");
    expect((await send(r, "GET", "/k8s-etcd-snapshots/snap-1.db.age")).body).toBe("age-encryption.org/v1\nsecond");
    const head = await send(r, "HEAD", "/k8s-etcd-snapshots/snap-1.db.age");
    expect([head.status, head.headers.get("content-length")]).toEqual([200, "28"]);
    const buckets = await send(r, "GET", "/");
    expect(buckets.body).toContain("<Name>k8s-etcd-snapshots</Name>");
    expect(buckets.body).not.toContain("versions.internal");
    expect(code(await send(r, "DELETE", "/k8s-etcd-snapshots/snap-1.db.age"))).toBe("AccessDenied");
    const versions = s3.list("snap-1");
    expect(versions.map((v) => [v.size, v.isLatest, v.by])).toEqual([
      [28, true, "learner"],
      [27, false, "learner"],
    ]);
    const oldest = versions[1]?.versionId ?? "";
    expect(Buffer.from((await s3.get("snap-1.db.age", oldest)) ?? []).toString()).toBe("age-encryption.org/v1\nfirst");
    expect(await s3.get("nothing-here")).toBeUndefined();
    expect(writes).toEqual(["learner:snap-1.db.age", "learner:snap-1.db.age", "learner:pki.tar.gz.age"]);
  });

  it("rejects a wrong secret, a tampered request or body, an unknown key and no signature", async () => {
    const wrong = { ...s3.learner, secretAccessKey: "not-the-secret" };
    const bad = await send(wrong, "PUT", "/k8s-etcd-snapshots/x", { body: "x" });
    expect([bad.status, code(bad)]).toEqual([403, "SignatureDoesNotMatch"]);
    const tamperedDate = await send(s3.learner, "PUT", "/k8s-etcd-snapshots/x", {
      body: "x",
      tamper: (h) =>
        (h["x-amz-date"] = (h["x-amz-date"] ?? "").replace(/(\d)Z$/, (_, d: string) => `${(Number(d) + 1) % 10}Z`)),
    });
    expect(code(tamperedDate)).toBe("SignatureDoesNotMatch");
    const tamperedPath = await send(s3.learner, "PUT", "/k8s-etcd-snapshots/x", {
      body: "x",
      tamper: (h) =>
        (h["authorization"] = (h["authorization"] ?? "").replace(
          /Signature=(.)/,
          (_, c: string) => `Signature=${c === "0" ? "1" : "0"}`,
        )),
    });
    expect(code(tamperedPath)).toBe("SignatureDoesNotMatch");
    const tamperedBody = await send(s3.learner, "PUT", "/k8s-etcd-snapshots/x", {
      body: "x",
      tamper: (h) => (h["x-amz-content-sha256"] = createHash("sha256").update("y").digest("hex")),
    });
    expect(code(tamperedBody)).toBe("SignatureDoesNotMatch");
    const unknown = await send({ accessKeyId: "AKIANOBODY", secretAccessKey: "x" }, "GET", "/");
    expect([unknown.status, code(unknown)]).toEqual([403, "InvalidAccessKeyId"]);
    const anon = await fetch(`${s3.url}/k8s-etcd-snapshots/x`, { method: "PUT", body: "x" });
    expect([anon.status, /<Code>(\w+)/.exec(await anon.text())?.[1]]).toEqual([403, "AccessDenied"]);
    expect(s3.list("x")).toEqual([]);
  });

  it("checks a signed payload against the body it came with", async () => {
    const res = await send(s3.learner, "PUT", "/k8s-etcd-snapshots/y", { body: "y" });
    expect(res.status).toBe(200);
    // A valid signature over the hash of "y", sent with the body "z".
    const h = createHash("sha256").update("y").digest("hex");
    const forged = await fetch(`${s3.url}/k8s-etcd-snapshots/y`, {
      method: "PUT",
      body: "z",
      headers: signedHeadersFor("PUT", "/k8s-etcd-snapshots/y", h),
    });
    expect([forged.status, /<Code>(\w+)/.exec(await forged.text())?.[1]]).toEqual([400, "XAmzContentSHA256Mismatch"]);
  });
});

function signedHeadersFor(method: string, path: string, payload: string): Record<string, string> {
  const amzDate = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    host: new URL(s3.url).host,
    "x-amz-content-sha256": payload,
    "x-amz-date": amzDate,
  };
  const signed = ["host", "x-amz-content-sha256", "x-amz-date"];
  const scope = `${date}/us-east-1/s3/aws4_request`;
  const canonical = canonicalRequest({ method, rawPath: path, rawQuery: "", headers }, signed, payload);
  const sig = createHmac("sha256", signingKey(s3.learner.secretAccessKey, date, "us-east-1", "s3"))
    .update(stringToSign(amzDate, scope, canonical))
    .digest("hex");
  headers["authorization"] =
    `AWS4-HMAC-SHA256 Credential=${s3.learner.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${sig}`;
  delete headers["host"];
  return headers;
}
