/**
 * Rng is the only source of randomness the pure cores see. Production drivers seed it from the OS;
 * tests and the simulator seed it from a number so that a run can be replayed exactly.
 */
export interface Rng {
  /** next returns a float in [0, 1). */
  next(): number;
  /** int returns an integer in [0, n). */
  int(n: number): number;
}

/**
 * seededRng returns a deterministic Rng (sfc32 seeded through splitmix32): the same seed always gives the
 * same sequence on every platform.
 */
export function seededRng(seed: number): Rng {
  let s = seed >>> 0;
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  const next32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next32();
  return {
    next: () => next32() / 4294967296,
    int: (n) => Math.floor((next32() / 4294967296) * n),
  };
}
