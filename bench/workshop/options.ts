// The workshop bench's flags (`npm run bench -- workshop --learners 30 ...`, bench/README.md lists them).
import { parseArgs } from "node:util";

/** WorkshopOptions configure one run of the workshop bench. */
export interface WorkshopOptions {
  /** ramp is the learner counts measured, one fresh lab server each, ascending; the last is --learners. */
  ramp: number[];
  /** soakMs is how long every learner keeps working after its solutions (the soak slice) in the last step. */
  soakMs: number;
  /** rampSoakMs is the soak slice of the steps before the last (default: soakMs). */
  rampSoakMs: number;
  /** sandbox is passed to the lab server as --sandbox when set (h-sandbox: direct | namespaces). */
  sandbox: string | null;
  /** labs are the lab ids handed out round-robin (learner i gets labs[i % labs.length]); empty: every lab. */
  labs: string[];
  /** labsDir is the lab server's --labs (default: the course's lab/). */
  labsDir: string | null;
  /** out is where the JSON report is written. */
  out: string;
  /** probeEveryMs is the pause between two echo probes of one learner. */
  probeEveryMs: number;
}

/** parseDuration reads `90s`, `5m`, `1h`, `1h30m` or a number of seconds into milliseconds. */
export function parseDuration(s: string): number {
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
  if (!m || s === "") throw new RangeError(`--soak/--ramp-soak: expected a duration like 90s, 10m or 1h, got "${s}"`);
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

function positive(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what}: expected an integer >= 1, got "${s}"`);
  return n;
}

/** defaultRamp is the learner counts measured before --learners itself: the one-learner baseline first. */
const defaultRamp = [1, 5, 10, 20];

/** parseWorkshopOptions parses the flags after `workshop`; a bad one throws a RangeError naming it. */
export function parseWorkshopOptions(args: string[]): WorkshopOptions {
  const { values } = parseArgs({
    args,
    options: {
      learners: { type: "string", default: "30" },
      ramp: { type: "string" },
      soak: { type: "string", default: "60s" },
      "ramp-soak": { type: "string" },
      sandbox: { type: "string" },
      labs: { type: "string" },
      "labs-dir": { type: "string" },
      out: { type: "string" },
      "probe-every": { type: "string", default: "500" },
    },
    strict: true,
  });
  const learners = positive(values.learners, "--learners");
  const asked = values.ramp
    ? values.ramp.split(",").map((x) => positive(x.trim(), "--ramp"))
    : defaultRamp.filter((n) => n < learners);
  const ramp = [...new Set([1, ...asked.filter((n) => n <= learners), learners])].sort((a, b) => a - b);
  return {
    ramp,
    soakMs: parseDuration(values.soak),
    rampSoakMs: parseDuration(values["ramp-soak"] ?? values.soak),
    sandbox: values.sandbox ?? null,
    labs: values.labs ? values.labs.split(",").map((x) => x.trim()) : [],
    labsDir: values["labs-dir"] ?? null,
    out: values.out ?? `.tmp/bench-workshop-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
    probeEveryMs: positive(values["probe-every"], "--probe-every"),
  };
}
