// A session's params (lab-format `params`): drawn once when the session is created, kept across lab reset (the
// session holds them). A param is drawn with crypto randomness, so neighbours in a workshop get different
// answers; one declared `perLearner` (an exam's) is derived from an HMAC of the learner, lab and name under the
// server's param secret, so the same learner gets the same value in every session of that lab, after any reset,
// and another learner most likely another.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createHmac, randomBytes, randomInt } from "node:crypto";
import { join } from "node:path";
import type { ParamSpec } from "../../../lab/lab-format.ts";

/** Rand draws an integer in [0, n). */
export type Rand = (n: number) => number;

/** tokenAlphabet is what a token param is made of: lower-case letters and digits. */
const tokenAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

/** paramSecretBytes is the size of the server's param secret. */
const paramSecretBytes = 32;

/**
 * drawParams draws every declared param for one session; `members` is the cluster's size. `rand` draws the
 * per-session ones (crypto randomness); `perLearner(name)` gives the deterministic stream of a `perLearner` param
 * (learnerRand), required when the lab declares one.
 */
export function drawParams(
  specs: Record<string, ParamSpec> | undefined,
  members: number,
  rand: Rand = (n) => randomInt(n),
  perLearner?: (name: string) => Rand,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(specs ?? {})) {
    if (p.perLearner && !perLearner) throw new Error(`param ${name} is perLearner: drawing it needs the learner`);
    const r = p.perLearner ? perLearner!(name) : rand;
    switch (p.kind) {
      case "member":
        out[name] = `m${1 + r(members)}`;
        break;
      case "int":
        out[name] = String(p.min + r(p.max - p.min + 1));
        break;
      case "token": {
        let t = "";
        for (let i = 0; i < (p.length ?? 8); i++) t += tokenAlphabet[r(tokenAlphabet.length)];
        out[name] = t;
        break;
      }
      case "choice":
        out[name] = p.values[r(p.values.length)] as string;
        break;
    }
  }
  return out;
}

/**
 * learnerRand is the deterministic, uniform stream of (learner, lab, param name) under `secret`: HMAC-SHA256 in
 * counter mode, cut into 32-bit words, with rejection sampling so every value in [0, n) is equally likely.
 */
export function learnerRand(secret: Buffer, learner: string, lab: string, name: string): Rand {
  let block = Buffer.alloc(0);
  let counter = 0;
  const word = (): number => {
    if (block.length < 4) {
      block = createHmac("sha256", secret).update(`${lab}\0${name}\0${learner}\0${counter++}`).digest();
    }
    const w = block.readUInt32BE(0);
    block = block.subarray(4);
    return w;
  };
  return (n) => {
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`learnerRand: bad range ${n}`);
    const limit = Math.floor(2 ** 32 / n) * n;
    for (;;) {
      const w = word();
      if (w < limit) return w % n;
    }
  };
}

/** loadParamSecret reads <home>/param-secret, making it (random, mode 0600) on first use. */
export function loadParamSecret(home: string): Buffer {
  const file = join(home, "param-secret");
  try {
    const s = readFileSync(file);
    if (s.length !== paramSecretBytes)
      throw new Error(`${file}: expected ${paramSecretBytes} bytes, found ${s.length}`);
    return s;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(home, { recursive: true });
  const secret = randomBytes(paramSecretBytes);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, secret, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return secret;
}
