// WAL segment file names, as etcd writes them: `<seq:016x>-<index:016x>.wal`, where seq counts segments from
// 0 and index is the Raft index of the first entry the segment may hold (last saved index + 1 at the cut).

/** WAL_SUFFIX is the extension of segment files. Other files in the WAL directory are ignored. */
export const WAL_SUFFIX = ".wal";

const NAME = /^([0-9a-f]{16})-([0-9a-f]{16})\.wal$/;

/** SegmentName is a parsed segment file name. */
export interface SegmentName {
  name: string;
  seq: number;
  index: number;
}

/** walName formats the file name of segment `seq` whose first entry index is `index`. */
export function walName(seq: number, index: number): string {
  return `${hex16(seq)}-${hex16(index)}${WAL_SUFFIX}`;
}

/** parseWalName parses a segment file name; undefined when `name` is not one. */
export function parseWalName(name: string): SegmentName | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const seq = Number.parseInt(m[1] ?? "", 16);
  const index = Number.parseInt(m[2] ?? "", 16);
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(index)) return undefined;
  return { name, seq, index };
}

/**
 * walNames picks the segment names out of a directory listing, sorted by name (= by seq), and returns the
 * other names separately (etcd warns "ignored file in WAL directory" for them, except leftover `.tmp` files).
 */
export function walNames(listing: readonly string[]): { segments: SegmentName[]; ignored: string[] } {
  const segments: SegmentName[] = [];
  const ignored: string[] = [];
  for (const n of listing) {
    const s = parseWalName(n);
    if (s) segments.push(s);
    else if (!n.endsWith(".tmp")) ignored.push(n);
  }
  segments.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { segments, ignored };
}

/**
 * searchIndex returns the position of the last segment whose first index is <= `index`: the segment that
 * holds the record for a snapshot at `index`. -1 when every segment starts after it.
 */
export function searchIndex(segments: readonly SegmentName[], index: number): number {
  for (let i = segments.length - 1; i >= 0; i--) {
    if (index >= (segments[i]?.index ?? Infinity)) return i;
  }
  return -1;
}

/** isValidSeq says whether the sequence numbers of `segments` increase by exactly one each. */
export function isValidSeq(segments: readonly SegmentName[]): boolean {
  for (let i = 1; i < segments.length; i++) {
    if ((segments[i]?.seq ?? 0) !== (segments[i - 1]?.seq ?? 0) + 1) return false;
  }
  return true;
}

function hex16(n: number): string {
  return n.toString(16).padStart(16, "0");
}
