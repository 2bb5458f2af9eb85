// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum etcd chains across WAL records and
// puts in snap files (Go's crc32.MakeTable(crc32.Castagnoli)). Slicing-by-8 tables: eight bytes per step.

const POLY = 0x82f63b78;

/** TABLES holds the slicing-by-8 lookup tables (tables[0] is the classic byte table). */
const TABLES: Uint32Array[] = (() => {
  const t: Uint32Array[] = [];
  for (let k = 0; k < 8; k++) t.push(new Uint32Array(256));
  const t0 = t[0] as Uint32Array;
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let j = 0; j < 8; j++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t0[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    let c = t0[i] as number;
    for (let k = 1; k < 8; k++) {
      c = (t0[c & 0xff] as number) ^ (c >>> 8);
      (t[k] as Uint32Array)[i] = c >>> 0;
    }
  }
  return t;
})();

/**
 * crc32cUpdate continues a CRC-32C over `data`, like Go's `crc32.Update(crc, castagnoliTable, data)`:
 * `crc32cUpdate(0, a ++ b) === crc32cUpdate(crc32cUpdate(0, a), b)`. That is how the WAL chains one
 * record's checksum into the next.
 */
export function crc32cUpdate(crc: number, data: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  let c = ~crc >>> 0;
  let i = 0;
  const n = data.length;
  const end8 = n - (n % 8);
  while (i < end8) {
    const lo =
      (c ^
        ((data[i] as number) |
          ((data[i + 1] as number) << 8) |
          ((data[i + 2] as number) << 16) |
          ((data[i + 3] as number) << 24))) >>>
      0;
    c =
      (t7[lo & 0xff] as number) ^
      (t6[(lo >>> 8) & 0xff] as number) ^
      (t5[(lo >>> 16) & 0xff] as number) ^
      (t4[lo >>> 24] as number) ^
      (t3[data[i + 4] as number] as number) ^
      (t2[data[i + 5] as number] as number) ^
      (t1[data[i + 6] as number] as number) ^
      (t0[data[i + 7] as number] as number);
    i += 8;
  }
  while (i < n) {
    c = (t0[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
    i++;
  }
  return ~c >>> 0;
}
