// Framing records into a bounded buffer and handing the bytes to the segment writer. The rolling CRC lives
// here: each record's crc is crc32c(previous crc, its data), chained across segments by the Crc record.
import { crc32cUpdate } from "./crc32c.ts";
import { FRAME_HEADER_BYTES, framePadBytes, writeFrameHeader } from "./frame.ts";
import { RecordType, recordBytes, writeRecord } from "./record.ts";

/** ENCODER_BUFFER_BYTES bounds the bytes held before they are written (a larger single record is written alone). */
export const ENCODER_BUFFER_BYTES = 1 << 20;

/** WalEncoder frames records and passes them, in order, to `write` whenever its buffer fills or on flush(). */
export class WalEncoder {
  private buf = Buffer.alloc(ENCODER_BUFFER_BYTES);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  private used = 0;

  constructor(
    private readonly write: (bytes: Buffer) => void,
    private crc: number,
  ) {}

  /** crc is the rolling CRC after the last encoded record. */
  get lastCrc(): number {
    return this.crc;
  }

  /** pendingBytes is what is buffered but not yet handed to the writer. */
  get pendingBytes(): number {
    return this.used;
  }

  /**
   * encode appends one record. A Crc record carries the current rolling CRC and no data; every other record
   * advances the CRC over its data first (etcd's encoder.encode).
   */
  encode(type: RecordType, data?: Uint8Array): void {
    if (type !== RecordType.Crc) this.crc = crc32cUpdate(this.crc, data ?? EMPTY);
    const body = recordBytes(type, this.crc, type === RecordType.Crc ? undefined : (data ?? EMPTY));
    const frame = FRAME_HEADER_BYTES + body + framePadBytes(body);
    if (this.used + frame > this.buf.length) {
      this.flush();
      if (frame > this.buf.length) {
        const big = Buffer.alloc(frame);
        this.put(big, new DataView(big.buffer, big.byteOffset, big.length), 0, type, body, data);
        this.write(big);
        return;
      }
    }
    this.used = this.put(this.buf, this.view, this.used, type, body, data);
  }

  /** flush hands every buffered byte to the writer. */
  flush(): void {
    if (this.used === 0) return;
    this.write(this.buf.subarray(0, this.used));
    this.used = 0;
  }

  private put(buf: Buffer, view: DataView, off: number, type: RecordType, body: number, data?: Uint8Array): number {
    writeFrameHeader(view, off, body);
    const end = writeRecord(
      buf,
      off + FRAME_HEADER_BYTES,
      type,
      this.crc,
      type === RecordType.Crc ? undefined : (data ?? EMPTY),
    );
    const pad = framePadBytes(body);
    buf.fill(0, end, end + pad);
    return end + pad;
  }
}

const EMPTY = new Uint8Array(0);
