// AWS Signature Version 4 as S3 verifies it for header authentication (`Authorization: AWS4-HMAC-SHA256
// Credential=AKID/date/region/s3/aws4_request, SignedHeaders=..., Signature=...`): the canonical request (S3's
// single URI encoding of the path, sorted query, the signed headers with trimmed values, the payload hash as
// x-amz-content-sha256 states it), the string to sign and the derived key. Payloads are either signed (the
// header is the body's SHA-256, which the gateway checks) or UNSIGNED-PAYLOAD; streaming (chunk-signed) uploads
// and presigned URLs are not accepted. The primitives are engine/aws/sigv4.ts; lab-s3.ts's gateway verifies with this.

import { timingSafeEqual } from "node:crypto";
import {
  parseAmzDate,
  sha256Hex,
  signature,
  signingKey,
  sortedQuery,
  stringToSign,
  uriEncode,
} from "../../aws/sigv4.ts";

/** SigV4Auth is a parsed Authorization header. */
export interface SigV4Auth {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** SigV4Request is what the signature covers. */
export interface SigV4Request {
  method: string;
  /** rawPath is the request target's path as sent (percent-encoded), without the query. */
  rawPath: string;
  /** rawQuery is the request target's query as sent, without "?". */
  rawQuery: string;
  /** headers are the request's headers, names in lower case (Node's IncomingMessage.headers). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** S3 error codes the verification can produce, with S3's messages. */
export type SigV4Failure =
  | { code: "AccessDenied"; message: string }
  | { code: "InvalidAccessKeyId"; message: string }
  | { code: "SignatureDoesNotMatch"; message: string }
  | { code: "AuthorizationHeaderMalformed"; message: string }
  | { code: "InvalidArgument"; message: string }
  | { code: "RequestTimeTooSkewed"; message: string }
  | { code: "NotImplemented"; message: string }
  | { code: "XAmzContentSHA256Mismatch"; message: string };

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, "%20"));
  } catch {
    return s;
  }
}

/** canonicalQuery sorts the query's parameters by encoded name, then value, each encoded once. */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === "") return "";
  const pairs = rawQuery
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const eq = p.indexOf("=");
      const name = eq < 0 ? p : p.slice(0, eq);
      const value = eq < 0 ? "" : p.slice(eq + 1);
      return [uriEncode(decode(name)), uriEncode(decode(value))] as const;
    });
  return sortedQuery(pairs);
}

/** parseAuthorization parses an AWS4-HMAC-SHA256 Authorization header, or says how S3 rejects it. */
export function parseAuthorization(header: string): SigV4Auth | SigV4Failure {
  const m = /^AWS4-HMAC-SHA256\s+(.*)$/.exec(header.trim());
  if (!m) {
    if (header.startsWith("AWS ")) {
      return { code: "InvalidArgument", message: "AWS authentication requires a valid Date or x-amz-date header" };
    }
    return { code: "AccessDenied", message: "Access Denied" };
  }
  const fields: Record<string, string> = {};
  for (const part of (m[1] as string).split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const cred = fields["Credential"]?.split("/");
  const signedHeaders = fields["SignedHeaders"];
  const signature = fields["Signature"];
  if (!cred || cred.length !== 5 || !signedHeaders || !signature || cred[4] !== "aws4_request") {
    return {
      code: "AuthorizationHeaderMalformed",
      message:
        'The authorization header is malformed; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    };
  }
  return {
    accessKeyId: cred[0] as string,
    date: cred[1] as string,
    region: cred[2] as string,
    service: cred[3] as string,
    signedHeaders: signedHeaders.split(";"),
    signature,
  };
}

function headerValue(v: string | string[] | undefined): string {
  const joined = Array.isArray(v) ? v.map((x) => x.trim()).join(",") : (v ?? "");
  return joined.trim().replace(/\s+/g, " ");
}

/** canonicalRequest is the request as SigV4 hashes it, for the headers `auth` names. */
export function canonicalRequest(req: SigV4Request, signedHeaders: readonly string[], payloadHash: string): string {
  const path = req.rawPath
    .split("/")
    .map((seg) => uriEncode(decode(seg.replace(/\+/g, "%2B"))))
    .join("/");
  const headers = signedHeaders.map((h) => `${h}:${headerValue(req.headers[h])}\n`).join("");
  return [req.method, path || "/", canonicalQuery(req.rawQuery), headers, signedHeaders.join(";"), payloadHash].join(
    "\n",
  );
}

/**
 * verifySigV4 checks a request's header signature with `secretOf` (undefined for an unknown key) at `nowMs`, and
 * the body against a signed payload hash. It returns the access key on success.
 */
export function verifySigV4(
  req: SigV4Request,
  body: Uint8Array,
  secretOf: (accessKeyId: string) => string | undefined,
  nowMs: number,
): { accessKeyId: string } | SigV4Failure {
  const header = headerValue(req.headers["authorization"]);
  if (header === "") {
    if (/(^|&)X-Amz-Algorithm=/.test(req.rawQuery)) {
      return { code: "NotImplemented", message: "Presigned URLs are not supported by the lab's S3 endpoint" };
    }
    return { code: "AccessDenied", message: "Access Denied" };
  }
  const auth = parseAuthorization(header);
  if ("code" in auth) return auth;
  const secret = secretOf(auth.accessKeyId);
  if (secret === undefined) {
    return { code: "InvalidAccessKeyId", message: "The AWS Access Key Id you provided does not exist in our records." };
  }
  const amzDate = headerValue(req.headers["x-amz-date"]);
  const when = parseAmzDate(amzDate);
  if (when === undefined || !auth.signedHeaders.includes("host")) {
    return { code: "AccessDenied", message: "Access Denied" };
  }
  if (Math.abs(nowMs - when) > 15 * 60_000) {
    return {
      code: "RequestTimeTooSkewed",
      message: "The difference between the request time and the current time is too large.",
    };
  }
  const payloadHash = headerValue(req.headers["x-amz-content-sha256"]);
  if (payloadHash.startsWith("STREAMING-")) {
    return {
      code: "NotImplemented",
      message: "Chunk-signed streaming uploads are not supported by the lab's S3 endpoint",
    };
  }
  if (payloadHash === "") {
    return {
      code: "InvalidArgument",
      message: "x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.",
    };
  }
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const canonical = canonicalRequest(req, auth.signedHeaders, payloadHash);
  const key = signingKey(secret, auth.date, auth.region, auth.service);
  const expected = Buffer.from(signature(key, stringToSign(amzDate, scope, canonical)), "hex");
  const given = Buffer.from(auth.signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || amzDate.slice(0, 8) !== auth.date) {
    return {
      code: "SignatureDoesNotMatch",
      message:
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    };
  }
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256Hex(body)) {
    return {
      code: "XAmzContentSHA256Mismatch",
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }
  return { accessKeyId: auth.accessKeyId };
}
