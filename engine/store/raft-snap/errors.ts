// Operating errors of the snap file store, with etcd 3.6's texts (server/etcdserver/api/snap).

/** SnapErrorKind names each error; SNAP_ERROR_TEXT holds etcd's text for it. */
export type SnapErrorKind = "no-snapshot" | "empty-snapshot" | "crc-mismatch" | "no-db-snapshot" | "decode";

/** SNAP_ERROR_TEXT is etcd's message for each kind. */
export const SNAP_ERROR_TEXT: Readonly<Record<SnapErrorKind, string>> = {
  "no-snapshot": "snap: no available snapshot",
  "empty-snapshot": "snap: empty snapshot",
  "crc-mismatch": "snap: crc mismatch",
  "no-db-snapshot": "snap: snapshot file doesn't exist",
  decode: "snap: cannot decode snapshot",
};

/** SnapError is an operating error of the snap store. */
export class SnapError extends Error {
  override name = "SnapError";
  constructor(
    readonly kind: SnapErrorKind,
    message: string = SNAP_ERROR_TEXT[kind],
  ) {
    super(message);
  }
}

/** isSnapError narrows an unknown error to a SnapError (optionally of one kind). */
export function isSnapError(err: unknown, kind?: SnapErrorKind): err is SnapError {
  return err instanceof SnapError && (kind === undefined || err.kind === kind);
}
