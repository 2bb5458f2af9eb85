// Reading a bucket as the member sees it: the committed file with the current batch's writes laid over it
// (etcd's read buffer). Both sources are walked in key order and merged; a pending write hides the file's
// entry for the same key, a pending delete hides it entirely.
import type { Database } from "lmdb";
import type { SortedMap } from "../mvcc/sorted-map.ts";
import { DELETED, type BufferedValue } from "./write-buffer.ts";

/** mergedScan visits [start, end) (end undefined: to the end) in key order until `visit` returns false. */
export function mergedScan(
  db: Database<Uint8Array, Uint8Array>,
  pendingWrites: SortedMap<BufferedValue> | undefined,
  start: Uint8Array,
  end: Uint8Array | undefined,
  visit: (key: Uint8Array, value: Uint8Array) => boolean | void,
): void {
  const startKey = latin1(start);
  const endKey = end === undefined ? undefined : latin1(end);
  if (endKey !== undefined && endKey <= startKey) return;
  const opts: { start?: Buffer; end?: Buffer } = {};
  if (start.length > 0) opts.start = Buffer.from(start);
  if (end !== undefined) opts.end = Buffer.from(end);
  const fileIter = db.getRange(opts)[Symbol.iterator]();
  const pending = pendingWrites?.entriesInRange(startKey, endKey);
  try {
    let f = fileIter.next();
    let p: IteratorResult<[string, BufferedValue]> | undefined = pending?.next();
    for (;;) {
      const fk = f.done ? undefined : latin1(f.value.key);
      const pk = p === undefined || p.done ? undefined : p.value[0];
      if (fk === undefined && pk === undefined) return;
      if (pk !== undefined && (fk === undefined || pk <= fk)) {
        const pv = (p as IteratorYieldResult<[string, BufferedValue]>).value[1];
        if (fk === pk) f = fileIter.next();
        p = pending?.next();
        if (pv !== DELETED && visit(plain(Buffer.from(pk, "latin1")), pv) === false) return;
      } else {
        const entry = (f as IteratorYieldResult<{ key: Uint8Array; value: Uint8Array }>).value;
        f = fileIter.next();
        if (visit(plain(entry.key), plain(entry.value)) === false) return;
      }
    }
  } finally {
    fileIter.return?.();
  }
}

/** latin1 reads bytes as a binary string without copying them. */
export function latin1(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1");
}

/** plain views a Buffer as a plain Uint8Array (same memory), the type every Backend returns. */
export function plain(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
