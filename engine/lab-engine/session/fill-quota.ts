// Filling the backend quota on purpose: write /lab/fill/<n> keys until the cluster answers with NOSPACE
// ("etcdserver: mvcc: database space exceeded"), reporting progress; and undoing it (delete, compact,
// defragment every member, disarm the alarm).
import type { LabStore } from "../types/lab-store.ts";

/** fillPrefix is where fill-quota writes. */
export const fillPrefix = "/lab/fill/";

/** noSpaceError is etcd's text for a write refused by the quota. */
export const noSpaceError = "etcdserver: mvcc: database space exceeded";

/** FillProgress is one progress report (about every 250 ms). */
export interface FillProgress {
  written: number;
  bytes: number;
  dbSize: number;
  quota: number;
}

/** FillResult is how filling ended: `error` is etcd's text (noSpaceError when the quota was reached). */
export interface FillResult {
  written: number;
  bytes: number;
  error: string | null;
}

/** fillKeysMax bounds a fill (at 1 MiB per key: 8 GiB, etcd's suggested maximum quota). */
export const fillKeysMax = 8192;

/**
 * fillQuota writes values of `valueBytes` (4 in flight) until a write fails or `signal` aborts.
 * `sizes` reports the leader's db size and quota for progress lines.
 */
export async function fillQuota(
  store: LabStore,
  opts: {
    valueBytes: number;
    sizes: () => { dbSize: number; quota: number };
    onProgress: (p: FillProgress) => void;
    signal?: AbortSignal;
  },
): Promise<FillResult> {
  const value = new Uint8Array(opts.valueBytes).map((_, i) => 97 + (i % 26));
  let next = 0;
  let written = 0;
  let error: string | null = null;
  let lastReport = 0;
  const report = (force = false) => {
    const now = Date.now();
    if (!force && now - lastReport < 250) return;
    lastReport = now;
    opts.onProgress({ written, bytes: written * opts.valueBytes, ...opts.sizes() });
  };
  const worker = async (): Promise<void> => {
    while (error === null && !opts.signal?.aborted && next < fillKeysMax) {
      const n = next++;
      try {
        await store.put(`${fillPrefix}${String(n).padStart(6, "0")}`, value);
        written++;
        report();
      } catch (err) {
        error ??= (err as Error).message;
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  report(true);
  if (error === null && next >= fillKeysMax) error = `stopped after ${fillKeysMax} keys without reaching the quota`;
  return { written, bytes: written * opts.valueBytes, error: opts.signal?.aborted ? "aborted" : error };
}

/** freeQuota deletes the fill keys, compacts, defragments every member and disarms alarms. */
export async function freeQuota(store: LabStore, endpoints: readonly string[]): Promise<{ deleted: number }> {
  // With NOSPACE active a delete is still allowed (it frees space), but disarm first so it cannot fail.
  await store.disarmAlarms();
  const deleted = await store.delete(fillPrefix, { prefix: true });
  const rev = await store.revision();
  await store.compact(rev).catch((err: Error) => {
    if (!/compacted/.test(err.message)) throw err; // already compacted to here is fine
  });
  for (const ep of endpoints) await store.defragment(ep);
  await store.disarmAlarms();
  return { deleted };
}

/** defaultFillValueBytes picks a value size: about 1/256 of the quota, between 16 KiB and 1 MiB. */
export function defaultFillValueBytes(quota: number): number {
  return Math.max(16 * 1024, Math.min(1024 * 1024, Math.floor(quota / 256)));
}
