// What an S3 request is (its operation, from method, path and query, as S3 names them in IAM policies) and how S3
// answers a refusal (its error XML). The gateway (gateway.ts) decides with these which key may do what.

import { randomBytes } from "node:crypto";

/** S3Operation is the API action of a request, as S3 names it. */
export type S3Operation =
  | "ListBuckets"
  | "CreateBucket"
  | "DeleteBucket"
  | "HeadBucket"
  | "ListObjects"
  | "ListObjectVersions"
  | "GetBucketSubresource"
  | "PutBucketSubresource"
  | "DeleteBucketSubresource"
  | "DeleteObjects"
  | "PutObject"
  | "CopyObject"
  | "GetObject"
  | "HeadObject"
  | "DeleteObject"
  | "CreateMultipartUpload"
  | "UploadPart"
  | "UploadPartCopy"
  | "CompleteMultipartUpload"
  | "AbortMultipartUpload"
  | "ListParts"
  | "ListMultipartUploads"
  | "ObjectSubresource";

/** S3Target is a request's bucket and key ("" when absent), decoded. */
export interface S3Target {
  bucket: string;
  key: string;
}

/** parseTarget splits a path-style request path (/bucket/key...) into bucket and key. */
export function parseTarget(rawPath: string): S3Target {
  const path = rawPath.replace(/^\/+/, "");
  const slash = path.indexOf("/");
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  if (slash < 0) return { bucket: dec(path), key: "" };
  return { bucket: dec(path.slice(0, slash)), key: dec(path.slice(slash + 1)) };
}

/** operationOf names the S3 operation of a request. */
export function operationOf(
  method: string,
  target: S3Target,
  query: URLSearchParams,
  headers: Readonly<Record<string, unknown>>,
): S3Operation {
  const m = method.toUpperCase();
  if (target.bucket === "") return m === "GET" ? "ListBuckets" : "GetBucketSubresource";
  if (target.key === "") {
    if (m === "POST" && query.has("delete")) return "DeleteObjects";
    if (m === "GET" && query.has("uploads")) return "ListMultipartUploads";
    if (m === "GET" && query.has("versions")) return "ListObjectVersions";
    const sub = [...query.keys()].some(
      (k) =>
        ![
          "list-type",
          "prefix",
          "delimiter",
          "marker",
          "max-keys",
          "continuation-token",
          "start-after",
          "encoding-type",
          "fetch-owner",
        ].includes(k),
    );
    if (m === "GET") return sub ? "GetBucketSubresource" : "ListObjects";
    if (m === "HEAD") return "HeadBucket";
    if (m === "PUT") return sub ? "PutBucketSubresource" : "CreateBucket";
    if (m === "DELETE") return sub ? "DeleteBucketSubresource" : "DeleteBucket";
    return "GetBucketSubresource";
  }
  if (m === "PUT" && query.has("partNumber") && query.has("uploadId")) {
    return "x-amz-copy-source" in headers ? "UploadPartCopy" : "UploadPart";
  }
  if (m === "PUT" && [...query.keys()].length === 0) return "x-amz-copy-source" in headers ? "CopyObject" : "PutObject";
  if (m === "POST" && query.has("uploads")) return "CreateMultipartUpload";
  if (m === "POST" && query.has("uploadId")) return "CompleteMultipartUpload";
  if (m === "DELETE" && query.has("uploadId")) return "AbortMultipartUpload";
  if (m === "GET" && query.has("uploadId")) return "ListParts";
  const sub = [...query.keys()].some((k) => !k.startsWith("response-") && k !== "versionId" && k !== "partNumber");
  if (sub) return "ObjectSubresource";
  if (m === "GET") return "GetObject";
  if (m === "HEAD") return "HeadObject";
  if (m === "DELETE") return "DeleteObject";
  return "ObjectSubresource";
}

/** requestId is an S3-style request ID (16 upper-case hex digits). */
export function requestId(): string {
  return randomBytes(8).toString("hex").toUpperCase();
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** errorXml is S3's error document. */
export function errorXml(code: string, message: string, reqId: string, extra: Record<string, string> = {}): string {
  const fields = Object.entries(extra)
    .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
    .join("");
  const hostId = randomBytes(24).toString("base64");
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>${fields}` +
    `<RequestId>${reqId}</RequestId><HostId>${hostId}</HostId></Error>`
  );
}

/** statusOf is the HTTP status S3 answers an error code with. */
export function statusOf(code: string): number {
  switch (code) {
    case "NoSuchBucket":
    case "NoSuchKey":
    case "NoSuchUpload":
      return 404;
    case "InvalidArgument":
    case "AuthorizationHeaderMalformed":
    case "XAmzContentSHA256Mismatch":
    case "EntityTooLarge":
    case "IncompleteBody":
      return 400;
    case "NotImplemented":
      return 501;
    default:
      return 403;
  }
}
