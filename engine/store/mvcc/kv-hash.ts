// Hashes of the MVCC state that members compare to detect corruption (etcd server/storage/mvcc/hash.go):
// HashKV(rev) is a CRC-32C over the `key` bucket entries that a compaction at rev would keep, seeded with
// the bucket name. Compactions store the hash they compute on the way (the last 10), and HashKV at such a
// revision answers from that store.
import { crc32cUpdate } from "../wal/crc32c.ts";
import { bytesOfBinaryString } from "./bytes.ts";
import { parseRevisionBytes, revisionId } from "./revision.ts";

/** KeyValueHash is the hash of the key space at `revision`, computed after compacting at `compactRevision`. */
export interface KeyValueHash {
  hash: number;
  compactRevision: number;
  revision: number;
}

/** HASH_STORAGE_MAX is how many compaction hashes are kept (etcd's hashStorageMaxSize). */
export const HASH_STORAGE_MAX = 10;

const KEY_BUCKET_NAME = bytesOfBinaryString("key");

/** KvHasher accumulates the HashKV of a revision while the `key` bucket is scanned in order. */
export class KvHasher {
  private crc = crc32cUpdate(0, KEY_BUCKET_NAME);

  constructor(
    private readonly compactRevision: number,
    private readonly revision: number,
    private readonly keep: Set<string>,
  ) {}

  /** writeKeyValue feeds one bucket entry (entries above `revision` or compacted away are skipped). */
  writeKeyValue(key: Uint8Array, value: Uint8Array): void {
    const kr = parseRevisionBytes(key);
    if (kr.main > this.revision) return;
    if (kr.main <= this.compactRevision && this.keep.size > 0 && !this.keep.has(revisionId(kr))) return;
    if (kr.main === this.compactRevision && kr.tombstone) return;
    this.crc = crc32cUpdate(this.crc, key);
    this.crc = crc32cUpdate(this.crc, value);
  }

  /** result returns the hash so far. */
  result(): KeyValueHash {
    return { hash: this.crc >>> 0, compactRevision: this.compactRevision, revision: this.revision };
  }
}

/** HashStorage keeps the latest compaction hashes, ordered by revision. */
export class HashStorage {
  private hashes: KeyValueHash[] = [];

  /** store records a compaction's hash (only the newest HASH_STORAGE_MAX are kept). */
  store(h: KeyValueHash): void {
    this.hashes.push(h);
    this.hashes.sort((a, b) => a.revision - b.revision);
    if (this.hashes.length > HASH_STORAGE_MAX) this.hashes = this.hashes.slice(-HASH_STORAGE_MAX);
  }

  /** find returns the stored hash for a revision. */
  find(revision: number): KeyValueHash | undefined {
    return this.hashes.find((h) => h.revision === revision);
  }

  /** all lists the stored hashes (oldest first). */
  all(): KeyValueHash[] {
    return [...this.hashes];
  }
}
