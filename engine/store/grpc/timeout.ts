// timeout: the grpc-timeout header — at most 8 digits and a unit (H, M, S, m, u, n).

const unitsMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/** parseGrpcTimeout returns the timeout in milliseconds, or undefined when the header is malformed. */
export function parseGrpcTimeout(value: string): number | undefined {
  const m = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * unitsMs[m[2]!]!;
}

/** formatGrpcTimeout encodes a timeout (ms, > 0) in the finest unit that fits in 8 digits. */
export function formatGrpcTimeout(timeoutMs: number): string {
  const ms = Math.max(0, timeoutMs);
  for (const [unit, scale] of [
    ["n", 1e-6],
    ["u", 1e-3],
    ["m", 1],
    ["S", 1000],
    ["M", 60_000],
  ] as const) {
    const v = Math.ceil(ms / scale);
    if (v < 1e8) return `${v}${unit}`;
  }
  return `${Math.min(99_999_999, Math.ceil(ms / 3_600_000))}H`;
}
