// Replaying the records of a WAL from a snapshot marker (etcd's ReadAll loop): entries after the marker, with
// later entries replacing conflicting ones; the last hard state; the metadata, which must never change; the
// CRC chain checked at every segment head; and the marker itself, which must be found.
import type { Entry, HardState } from "../raft/raftpb.ts";
import { decodeEntry, decodeHardState, decodeWalSnapshot, EMPTY_HARD_STATE } from "./codec.ts";
import type { WalSnapshot } from "./codec.ts";
import type { WalDecoder } from "./decoder.ts";
import { atPosition, walError, WalError } from "./errors.ts";
import { RecordType } from "./record.ts";

/** ReplayedLog is what readRecords recovers. */
export interface ReplayedLog {
  metadata: Uint8Array | undefined;
  state: HardState;
  entries: Entry[];
  /** lastEntryIndex is the index of the last entry record read (before or after the marker). */
  lastEntryIndex: number;
}

/**
 * readRecords drains `decoder`, replaying the log after `start`. It throws a WalError for any problem; with
 * `stopAtTornTail` a torn tail just ends the log (read-only use, etcd's OpenForRead).
 */
export function readRecords(decoder: WalDecoder, start: WalSnapshot, stopAtTornTail: boolean): ReplayedLog {
  let metadata: Uint8Array | undefined;
  let state: HardState = { ...EMPTY_HARD_STATE };
  const entries: Entry[] = [];
  let lastEntryIndex = 0;
  let match = false;
  const next = (): ReturnType<WalDecoder["next"]> => {
    try {
      return decoder.next();
    } catch (err) {
      if (stopAtTornTail && err instanceof WalError && err.kind === "unexpected-eof") return undefined;
      throw err;
    }
  };
  for (let rec = next(); rec !== undefined; rec = next()) {
    switch (rec.type) {
      case RecordType.Entry: {
        const e = decodeEntry(rec.data);
        if (e.index > start.index) {
          const offset = e.index - start.index - 1;
          if (offset > entries.length) {
            throw walError(
              "slice-out-of-range",
              `, snapshot[Index: ${start.index}, Term: ${start.term}], current entry[Index: ${e.index}, Term: ${e.term}], len(ents): ${entries.length}`,
            );
          }
          entries.length = offset; // a later entry overwrites every conflicting one after it (Raft §5.3)
          entries.push(e);
        }
        lastEntryIndex = e.index;
        break;
      }
      case RecordType.State:
        state = decodeHardState(rec.data);
        break;
      case RecordType.Metadata:
        if (metadata !== undefined && !Buffer.from(metadata).equals(rec.data)) throw walError("metadata-conflict");
        metadata = Uint8Array.prototype.slice.call(rec.data); // a copy: rec.data is a view into the read window
        break;
      case RecordType.Crc: {
        const crc = decoder.lastCrc;
        // A fresh decoder (opened mid-log) has crc 0 and adopts the record's; otherwise they must agree.
        if (crc !== 0 && rec.crc !== crc) {
          const f = decoder.currentFile?.name ?? "";
          throw walError(
            "crc-mismatch",
            `: expected: ${rec.crc.toString(16)} computed: ${crc.toString(16)}${atPosition(f, decoder.lastRecordOffset)}`,
            f,
            decoder.lastRecordOffset,
          );
        }
        decoder.updateCrc(rec.crc);
        break;
      }
      case RecordType.Snapshot: {
        const s = decodeWalSnapshot(rec.data);
        if (s.index === start.index) {
          if (s.term !== start.term) throw walError("snapshot-mismatch");
          match = true;
        }
        break;
      }
      default:
        throw walError("unexpected-record-type", ` ${rec.type}`);
    }
  }
  if (!match) throw walError("snapshot-not-found");
  return { metadata, state, entries, lastEntryIndex };
}
