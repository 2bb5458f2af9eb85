// AWS Signature Version 4 primitives, written from the AWS documentation: the S3 URI encoding, the derived
// signing key, the string to sign and the x-amz-date format. The lab's S3 gateway verifies with them
// (engine/lab-engine/s3/sigv4.ts) and our rclone signs with them (engine/tools/rclone/sigv4.ts).
import { createHash, createHmac } from "node:crypto";

/** sha256Hex is the lower-case hex SHA-256 of `data`. */
export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

const hmac = (key: Uint8Array | string, data: string) => createHmac("sha256", key).update(data).digest();

/** uriEncode is AWS's UriEncode: every byte but A-Z a-z 0-9 - . _ ~ (and "/" when kept) as upper-case %XX. */
export function uriEncode(s: string, keepSlash = false): string {
  let out = "";
  for (const byte of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** sortedQuery joins encoded query pairs in SigV4's canonical order: by name, then by value. */
export function sortedQuery(pairs: (readonly [string, string])[]): string {
  return [...pairs]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join("&");
}

/** signingKey derives SigV4's key for one day, region and service. */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
}

/** stringToSign is SigV4's string to sign for an x-amz-date, the credential scope and the canonical request. */
export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonical)].join("\n");
}

/** signature is the hex HMAC of the string to sign under the derived key. */
export function signature(key: Buffer, toSign: string): string {
  return createHmac("sha256", key).update(toSign).digest("hex");
}

/** formatAmzDate formats a time as SigV4's x-amz-date (20261202T030405Z). */
export function formatAmzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/** parseAmzDate reads an x-amz-date (20261202T030405Z) as epoch ms, or undefined. */
export function parseAmzDate(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, se);
}
