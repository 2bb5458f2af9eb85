// What every seeded resource shares: names, uids and creation times drawn from the seed's Rng, ObjectMeta,
// the key layout /registry/<resource>/<namespace>/<name>, and the list of entries in write order.
// Invariant: the Rng is drawn from in the order the resources call these helpers, so a resource module must
// not reorder its calls (the digest pinned in seed-plan.test.ts fails if one does).
import type { Rng } from "../../common/rng.ts";
import { formatTime } from "../../kube/api/times.ts";
import type { Meta } from "./k8s-objects.ts";

/** SeedEntry is one key to write. */
export interface SeedEntry {
  key: string;
  value: Uint8Array;
  /** secret marks a value the aescbc provider would encrypt. */
  secret?: boolean;
}

/** alphabet is k8s's rand.String alphabet (apimachinery/pkg/util/rand): no vowels, no 0/1/3. */
const alphabet = "bcdfghjklmnpqrstvwxz2456789";

/** registryKey is where kube-apiserver stores an object: /registry/<resource>/[<namespace>/]<name>. */
export function registryKey(resource: string, m: Pick<Meta, "name" | "namespace">): string {
  return `/registry/${resource}/${m.namespace ? `${m.namespace}/` : ""}${m.name}`;
}

/** iso renders seconds since the epoch as Kubernetes prints times (RFC 3339, seconds, Z). */
export function iso(seconds: number): string {
  return formatTime(Math.floor(seconds));
}

/** SeedWriter collects the seed's entries and hands out its deterministic names, uids and times. */
export class SeedWriter {
  /** entries are the keys to write, in the order the resources were seeded. */
  readonly entries: SeedEntry[] = [];
  private clock: number;

  constructor(
    private readonly rng: Rng,
    createdAt: number,
  ) {
    this.clock = createdAt;
  }

  /** now is the seed's clock (seconds): the creation time of the object made last. */
  get now(): number {
    return this.clock;
  }

  /** tick moves the clock on by 1-3 s, as objects created one after another are, and returns it. */
  tick(): number {
    return (this.clock += 1 + this.rng.int(3));
  }

  /** suffix is a random name suffix of `n` characters (a ReplicaSet's pod-template-hash, a pod's tail). */
  suffix(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.rng.int(alphabet.length)];
    return s;
  }

  /** uuid is a random version-4 UUID, as kube-apiserver gives every object. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => "0123456789abcdef"[this.rng.int(16)]).join("");
    const variant = "89ab"[this.rng.int(4)];
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
  }

  /** meta is the ObjectMeta of a new object: a fresh uid, then the next creation time. */
  meta(name: string, namespace?: string, extra: Partial<Meta> = {}): Meta {
    return { name, ...(namespace ? { namespace } : {}), uid: this.uuid(), created: this.tick(), ...extra };
  }

  /** put appends one entry. */
  put(key: string, value: Uint8Array, secret = false): void {
    this.entries.push(secret ? { key, value, secret } : { key, value });
  }

  /** putObject appends an object under its registry key (see registryKey). */
  putObject(resource: string, m: Meta, value: Uint8Array, secret = false): void {
    this.put(registryKey(resource, m), value, secret);
  }
}
