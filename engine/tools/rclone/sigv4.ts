// AWS Signature Version 4 signing of S3 requests as rclone's AWS SDK (aws-sdk-go v1) sends them: header
// authentication, the payload's SHA-256 in x-amz-content-sha256, signed headers host, x-amz-content-sha256,
// x-amz-date and any content-md5/content-type/x-amz-* the request carries. The primitives are engine/aws/sigv4.ts.

import {
  formatAmzDate,
  sha256Hex,
  signature,
  signingKey,
  sortedQuery,
  stringToSign,
  uriEncode,
} from "../../aws/sigv4.ts";

/** SignInput is one request to sign; `query` is already in canonical order and encoding. */
export interface SignInput {
  method: string;
  host: string;
  /** path is the escaped request path (/bucket/key). */
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: Uint8Array;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  nowMs: number;
}

/** queryString encodes and sorts query parameters as SigV4's canonical query (also the URL's query). */
export function queryString(query: readonly [string, string][]): string {
  return sortedQuery(query.map(([k, v]) => [uriEncode(k), uriEncode(v)] as const));
}

/** signRequest returns the headers to send: the input's plus x-amz-date, x-amz-content-sha256, Authorization. */
export function signRequest(r: SignInput): Record<string, string> {
  const date = formatAmzDate(r.nowMs);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
  headers["host"] = r.host;
  headers["x-amz-date"] = date;
  headers["x-amz-content-sha256"] = sha256Hex(r.body);
  const signed = Object.keys(headers)
    .filter((h) => h === "host" || h === "content-md5" || h === "content-type" || h.startsWith("x-amz-"))
    .sort();
  const canonical = [
    r.method,
    r.path,
    queryString(r.query),
    signed.map((h) => `${h}:${(headers[h] ?? "").trim().replace(/\s+/g, " ")}\n`).join(""),
    signed.join(";"),
    headers["x-amz-content-sha256"],
  ].join("\n");
  const scope = `${day}/${r.region}/s3/aws4_request`;
  const sig = signature(signingKey(r.secretAccessKey, day, r.region, "s3"), stringToSign(date, scope, canonical));
  headers["authorization"] =
    `AWS4-HMAC-SHA256 Credential=${r.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${sig}`;
  return headers;
}
