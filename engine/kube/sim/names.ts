// The names Kubernetes makes up: generateName's 5-character tail and the pod-template-hash, both spelled in
// apimachinery's util/rand alphabet (no vowels, no 0/1/3 so no words and no look-alikes), container ids and
// UUIDs. All from an injected Rng so a seeded session names the same things every time.
import type { Rng } from "../../common/rng.ts";

/** alphanums is k8s.io/apimachinery/pkg/util/rand's alphabet. */
export const alphanums = "bcdfghjklmnpqrstvwxz2456789";

/** randomSuffix is names.SimpleNameGenerator's tail: 5 characters of the alphabet. */
export function randomSuffix(rng: Rng, n = 5): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphanums[rng.int(alphanums.length)];
  return s;
}

/** safeEncode is rand.SafeEncodeString: every byte of `s` mapped onto the alphabet. */
export function safeEncode(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += alphanums[s.charCodeAt(i) % alphanums.length];
  return out;
}

/** fnv32a is the 32-bit FNV-1a hash of a string's UTF-16 code units (ASCII JSON in practice). */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}

/** canonicalJson is JSON with object keys sorted, so equal objects hash equal. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/**
 * podTemplateHash is the deployment controller's pod-template-hash: the FNV-32a of the template (and the
 * collision count), its decimal digits safe-encoded. kube hashes the Go struct's dump; we hash canonical JSON,
 * so the value has the real shape but not the real bytes.
 */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  const h = fnv32a(canonicalJson(template) + (collisionCount ? String(collisionCount) : ""));
  return safeEncode(String(h));
}

/** uuidFrom is a version-4 UUID drawn from `rng`. */
export function uuidFrom(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16));
  hex[12] = "4";
  hex[16] = (8 + rng.int(4)).toString(16);
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** containerId is a containerd container id: 64 hex digits. */
export function containerId(rng: Rng): string {
  return Array.from({ length: 64 }, () => rng.int(16).toString(16)).join("");
}
