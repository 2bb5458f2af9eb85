// metadata: gRPC custom metadata as a plain record of lowercase keys to string values, and its mapping to
// HTTP/2 headers. Reserved headers (pseudo-headers, content-type, te, grpc-*) never appear in Metadata.
// Binary (-bin) values stay base64 text, as on the wire.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http2";

/** Metadata is request or response metadata: lowercase key → value (several values joined by ", "). */
export type Metadata = Record<string, string>;

const reserved = new Set([
  "content-type",
  "te",
  "user-agent",
  "grpc-timeout",
  "grpc-encoding",
  "grpc-accept-encoding",
  "grpc-status",
  "grpc-message",
  "grpc-status-details-bin",
  "content-length",
  "connection",
  "host",
]);

/** metadataFromHeaders extracts custom metadata from received headers or trailers. */
export function metadataFromHeaders(headers: IncomingHttpHeaders): Metadata {
  const md: Metadata = {};
  for (const key in headers) {
    if (key.charCodeAt(0) === 58 /* ':' */ || reserved.has(key)) continue;
    const v = headers[key];
    if (v === undefined) continue;
    md[key] = Array.isArray(v) ? v.join(", ") : v;
  }
  return md;
}

/** metadataToHeaders copies metadata into outgoing headers, lowercasing keys and dropping reserved ones. */
export function metadataToHeaders(md: Metadata | undefined, into: OutgoingHttpHeaders): OutgoingHttpHeaders {
  if (md) {
    for (const key in md) {
      const k = key.toLowerCase();
      if (k.charCodeAt(0) === 58 || reserved.has(k)) continue;
      into[k] = md[key];
    }
  }
  return into;
}
