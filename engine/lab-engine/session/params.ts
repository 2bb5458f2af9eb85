// A session's params (lab-format `params`): drawn once when the session is created, with crypto randomness so
// that neighbours in a workshop get different answers; kept across lab reset (the session holds them).
import { randomInt } from "node:crypto";
import type { ParamSpec } from "../../../lab/lab-format.ts";

/** tokenAlphabet is what a token param is made of: lower-case letters and digits. */
const tokenAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

/** drawParams draws every declared param for one session (crypto randomness); `members` is the cluster's size. */
export function drawParams(
  specs: Record<string, ParamSpec> | undefined,
  members: number,
  rand: (n: number) => number = (n) => randomInt(n),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(specs ?? {})) {
    switch (p.kind) {
      case "member":
        out[name] = `m${1 + rand(members)}`;
        break;
      case "int":
        out[name] = String(p.min + rand(p.max - p.min + 1));
        break;
      case "token": {
        let t = "";
        for (let i = 0; i < (p.length ?? 8); i++) t += tokenAlphabet[rand(tokenAlphabet.length)];
        out[name] = t;
        break;
      }
      case "choice":
        out[name] = p.values[rand(p.values.length)] as string;
        break;
    }
  }
  return out;
}
