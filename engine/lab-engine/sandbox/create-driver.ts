// Choosing the session driver: `--sandbox direct|namespaces` (ETCD_LAB_SANDBOX). "direct" is the single-user
// default; "namespaces" (the workshop's) refuses to start, saying what to install, when this machine cannot run
// it — it never falls back to direct.
import { randomBytes } from "node:crypto";
import { DirectDriver, sandboxModes, type SandboxMode, type SessionDriver } from "./driver.ts";
import { checkNamespaces, NamespacesDriver } from "./namespaces-driver.ts";

export { SandboxUnavailable } from "./namespaces-driver.ts";

/** parseSandboxMode reads a --sandbox value (throws RangeError naming the modes). */
export function parseSandboxMode(s: string): SandboxMode {
  if ((sandboxModes as readonly string[]).includes(s)) return s as SandboxMode;
  throw new RangeError(`--sandbox: expected ${sandboxModes.join(" or ")}, got "${s}"`);
}

/**
 * checkSandbox throws SandboxUnavailable (its message says what to install or which kernel feature is missing)
 * unless `mode` can run on this machine. The server calls it before it listens.
 */
export function checkSandbox(mode: SandboxMode): void {
  if (mode === "namespaces") checkNamespaces();
}

/** CreateDriverOptions place a driver. */
export interface CreateDriverOptions {
  /** home is the lab home (hidden from the boxes but for each one's workspace). */
  home: string;
}

/** createDriver makes the driver of `mode` (checkSandbox first: it throws rather than fall back). */
export function createDriver(mode: SandboxMode, o: CreateDriverOptions): SessionDriver {
  checkSandbox(mode);
  if (mode === "direct") return new DirectDriver();
  return new NamespacesDriver({ home: o.home, runId: randomBytes(6).toString("hex") });
}
