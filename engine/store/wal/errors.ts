// Operating errors of the WAL, as values carrying etcd 3.6's texts (server/storage/wal/wal.go, walpb,
// decoder.go). `repairable` marks the one kind a member may fix by itself: a torn tail of the last segment
// (etcd's io.ErrUnexpectedEOF), which `repairWal` truncates.

/** WalErrorKind names each WAL error; `text` below is etcd's message for it. */
export type WalErrorKind =
  | "exist"
  | "file-not-found"
  | "crc-mismatch"
  | "unexpected-eof"
  | "corrupt-record"
  | "metadata-conflict"
  | "snapshot-mismatch"
  | "snapshot-not-found"
  | "slice-out-of-range"
  | "unexpected-record-type"
  | "seq-gap"
  | "no-snapshot-file"
  | "missing-conf-state"
  | "closed";

/** WAL_ERROR_TEXT is etcd's text for each kind (the start of the message; details follow after ": "). */
export const WAL_ERROR_TEXT: Readonly<Record<WalErrorKind, string>> = {
  exist: "file already exists",
  "file-not-found": "wal: file not found",
  "crc-mismatch": "walpb: crc mismatch",
  "unexpected-eof": "unexpected EOF",
  "corrupt-record": "wal: corrupt record",
  "metadata-conflict": "wal: conflicting metadata found",
  "snapshot-mismatch": "wal: snapshot mismatch",
  "snapshot-not-found": "wal: snapshot not found",
  "slice-out-of-range": "wal: slice bounds out of range",
  "unexpected-record-type": "unexpected block type",
  "seq-gap": "wal: file sequence numbers do not increase continuously",
  "no-snapshot-file": "wal: file not found which matches the snapshot index",
  "missing-conf-state": "Saved (not-initial) snapshot is missing ConfState",
  closed: "wal: closed",
};

/** WalError is an operating error of the WAL: etcd's text, plus the file and byte offset when known. */
export class WalError extends Error {
  override name = "WalError";
  constructor(
    readonly kind: WalErrorKind,
    message: string,
    /** file is the segment (base name) the problem is in, when it is about one place in the log. */
    readonly file?: string,
    /** offset is the byte offset in `file` of the frame that could not be read. */
    readonly offset?: number,
  ) {
    super(message);
  }

  /** repairable says whether truncating the last segment at `offset` may fix this (a torn tail). */
  get repairable(): boolean {
    return this.kind === "unexpected-eof";
  }
}

/** walError builds a WalError whose message is etcd's text for `kind`, followed by `detail` if given. */
export function walError(kind: WalErrorKind, detail?: string, file?: string, offset?: number): WalError {
  const text = WAL_ERROR_TEXT[kind];
  return new WalError(kind, detail === undefined ? text : `${text}${detail}`, file, offset);
}

/** atPosition is etcd's suffix naming a place in the log: `: in file '<name>' at position: <offset>`. */
export function atPosition(file: string, offset: number): string {
  return `: in file '${file}' at position: ${offset}`;
}
