// Deciding an anti-solution's proof: after its commands the task's check must FAIL, and with a message that
// matches the anti-solution's `message` (a regular expression), so that the learner who made that mistake is
// told why. The solve route reports this verdict; test/lab/labs.test.ts requires it for every anti-solution.
import type { AntiSolution } from "../../../lab/lab-format.ts";

/** AntiVerdict says whether an anti-solution was refused as its lab promises, and why not when not. */
export interface AntiVerdict {
  name: string;
  /** expected is the regular expression (source) the failing message had to match. */
  expected: string;
  proven: boolean;
  /** why explains the verdict in one line. */
  why: string;
}

/** antiVerdict judges one check result (raw, not the sticky one) after an anti-solution's commands. */
export function antiVerdict(anti: AntiSolution, result: { passed: boolean; message: string }): AntiVerdict {
  const base = { name: anti.name, expected: anti.message };
  if (result.passed) {
    return { ...base, proven: false, why: `the check passed after "${anti.name}": ${result.message}` };
  }
  if (!new RegExp(anti.message).test(result.message)) {
    return {
      ...base,
      proven: false,
      why: `the check failed, but its message does not match /${anti.message}/: ${result.message}`,
    };
  }
  return { ...base, proven: true, why: `the check failed as expected: ${result.message}` };
}
