// Test support: which backends a test can run on here. A missing backend skips loudly, except under
// ETCD_LAB_CI=1 where it fails (CI installs everything).
import { BackendUnavailable, resolveMemberBinary } from "./member-binary.ts";
import type { Backend } from "./status-types.ts";

/** testBackends returns the backends available here, printing why others are skipped (or throwing in CI). */
export function testBackends(wanted: readonly Backend[] = ["ours", "real"]): Backend[] {
  const out: Backend[] = [];
  for (const b of wanted) {
    try {
      resolveMemberBinary(b);
      out.push(b);
    } catch (err) {
      if (!(err instanceof BackendUnavailable)) throw err;
      if (process.env["ETCD_LAB_CI"] === "1")
        throw new Error(`ETCD_LAB_CI=1 but backend ${b} is unavailable: ${err.message}`);
      console.warn(`\n!!! SKIPPING the ${b} backend: ${err.message}\n`);
    }
  }
  return out;
}
