// percent: grpc-message encoding (gRPC over HTTP/2 spec): UTF-8, then every byte outside 0x20..0x7E and
// '%' itself written as %XX. Decoding leaves malformed escapes as they are, like grpc-go.

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** encodeGrpcMessage percent-encodes a status message for the grpc-message trailer. */
export function encodeGrpcMessage(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  let out = "";
  for (const b of utf8.encode(message)) {
    out +=
      b < 0x20 || b > 0x7e || b === 0x25 ? `%${b.toString(16).toUpperCase().padStart(2, "0")}` : String.fromCharCode(b);
  }
  return out;
}

/** decodeGrpcMessage reverses encodeGrpcMessage. */
export function decodeGrpcMessage(value: string): string {
  if (!value.includes("%")) return value;
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) {
      bytes.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of utf8.encode(value[i]!)) bytes.push(b);
    }
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}
