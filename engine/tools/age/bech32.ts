// Bech32 (BIP 173) as age 1.1.1 checks it, with its error texts: age keys are Bech32 strings (`age1…` recipients,
// `AGE-SECRET-KEY-1…` identities), and a malformed key prints exactly what went wrong
// (`separator '1' at invalid position: pos=3, len=7`). age applies no 90-character limit. The cryptography is
// the age-encryption package's; this module only decides whether a string is a key and how age words the
// rejection.

const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** Bech32Error is a decoding failure worded as age's internal/bech32 package words it. */
export class Bech32Error extends Error {
  override name = "Bech32Error";
}

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= generator[i] as number;
  }
  return chk >>> 0;
}

function hrpExpand(hrpAnyCase: string): number[] {
  const hrp = hrpAnyCase.toLowerCase();
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

function convertBits(data: readonly number[], from: number, to: number, pad: boolean): number[] {
  let acc = 0;
  let bits = 0;
  const max = (1 << to) - 1;
  const out: number[] = [];
  for (let idx = 0; idx < data.length; idx++) {
    const value = data[idx] as number;
    if (value >> from !== 0) throw new Bech32Error(`invalid data range: data[${idx}]=${value} (frombits=${from})`);
    acc = ((acc << from) | value) >>> 0;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >>> bits) & max);
    }
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & max);
  } else if (bits >= from) {
    throw new Bech32Error("illegal zero padding");
  } else if (((acc << (to - bits)) & max) !== 0) {
    throw new Bech32Error("non-zero padding");
  }
  return out;
}

/** bech32Decode returns the human-readable part (in the string's case) and the data bytes, or throws Bech32Error. */
export function bech32Decode(s: string): { hrp: string; data: Uint8Array } {
  if (s.toLowerCase() !== s && s.toUpperCase() !== s) throw new Bech32Error("mixed case");
  const pos = s.lastIndexOf("1");
  const len = Buffer.byteLength(s, "utf8");
  if (pos < 1 || Buffer.byteLength(s.slice(0, pos), "utf8") + 7 > len) {
    const bytePos = pos < 0 ? -1 : Buffer.byteLength(s.slice(0, pos), "utf8");
    throw new Bech32Error(`separator '1' at invalid position: pos=${bytePos}, len=${len}`);
  }
  const hrp = s.slice(0, pos);
  let p = 0;
  for (const c of hrp) {
    const code = c.codePointAt(0) as number;
    if (code < 33 || code > 126) throw new Bech32Error(`invalid character human-readable part: s[${p}]=${code}`);
    p += Buffer.byteLength(c, "utf8");
  }
  const data: number[] = [];
  p = 0;
  for (const c of s.toLowerCase().slice(pos + 1)) {
    const d = charset.indexOf(c);
    if (d === -1) throw new Bech32Error(`invalid character data part: s[${p}]=${c.codePointAt(0) as number}`);
    data.push(d);
    p += Buffer.byteLength(c, "utf8");
  }
  if (polymod([...hrpExpand(hrp), ...data]) !== 1) {
    throw new Bech32Error("invalid checksum");
  }
  return { hrp, data: Uint8Array.from(convertBits(data.slice(0, -6), 5, 8, false)) };
}

/** bech32Encode encodes bytes under `hrp`; an upper-case hrp gives an upper-case string (age's secret keys). */
export function bech32Encode(hrp: string, bytes: Uint8Array): string {
  const values = convertBits([...bytes], 8, 5, true);
  const lower = hrp.toLowerCase();
  const mod = polymod([...hrpExpand(hrp), ...values, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((p) => (mod >>> (5 * (5 - p))) & 31);
  const out = `${lower}1${[...values, ...checksum].map((v) => charset[v]).join("")}`;
  return hrp === lower ? out : out.toUpperCase();
}
