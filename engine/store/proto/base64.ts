// base64: standard base64 (RFC 4648 §4) for JSON bytes fields, in plain TypeScript so engine/store/proto stays pure.
// Decoding also accepts the URL-safe alphabet and missing padding, as protojson does.

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const values = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) values[alphabet.charCodeAt(i)] = i;
values["-".charCodeAt(0)] = 62;
values["_".charCodeAt(0)] = 63;

/** base64Encode returns the padded standard base64 text of bytes. */
export function base64Encode(bytes: Uint8Array): string {
  let out = "";
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + alphabet[(v >> 6) & 63]! + alphabet[v & 63]!;
  }
  if (i + 1 === n) {
    const v = bytes[i]! << 16;
    out += `${alphabet[v >> 18]!}${alphabet[(v >> 12) & 63]!}==`;
  } else if (i + 2 === n) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${alphabet[v >> 18]!}${alphabet[(v >> 12) & 63]!}${alphabet[(v >> 6) & 63]!}=`;
  }
  return out;
}

/**
 * base64Decode decodes standard or URL-safe base64, padded or not. It returns undefined for invalid text
 * (callers put the error in their own words).
 */
export function base64Decode(text: string): Uint8Array | undefined {
  let end = text.length;
  if (end % 4 === 0 && text.endsWith("==")) end -= 2;
  else if (end % 4 === 0 && text.endsWith("=")) end -= 1;
  if (end % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? values[c]! : -1;
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  return out;
}
