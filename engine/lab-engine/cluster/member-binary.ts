// The member binary behind a session: our TypeScript etcd (dist/etcd.cjs, run by this Node) or Debian's real
// etcd 3.4 (/usr/bin/etcd). Both take the etcd flags the cluster manager passes; only ours has the fault
// channel (ETCD_LAB_CONTROL_SOCKET), so the real backend's capabilities leave out network and disk faults.
import { accessSync, constants, existsSync } from "node:fs";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { capabilitiesOf } from "../types/status-types.ts";
import type { Backend, Capabilities } from "../types/status-types.ts";
import { repoRoot } from "../host/repo-root.ts";

/** MemberBinary says how to start a member of one backend. */
export interface MemberBinary {
  backend: Backend;
  /** command and argsPrefix are spawned as `command ...argsPrefix ...etcdFlags`. */
  command: string;
  argsPrefix: string[];
  /** faultChannel says the member serves ETCD_LAB_CONTROL_SOCKET. */
  faultChannel: boolean;
  capabilities: Capabilities;
}

/** BackendUnavailable explains why a backend cannot run on this machine. */
export class BackendUnavailable extends Error {
  override name = "BackendUnavailable";
}

/** unsupportedReason is the error text for a fault the backend cannot inject. */
export function unsupportedReason(backend: Backend, control: string): string {
  return backend === "real"
    ? `${control} is not available on the real-etcd backend: real etcd has no fault channel ` +
        `(it supports only process controls: stop, kill, pause, resume, start, restart, wipe, rejoin)`
    : `${control} is not available on the ${backend} backend`;
}

/**
 * memberNodeFlags are the V8 flags of our member processes: none. Any V8 flag changes V8's flag hash, so Node
 * compiles its own built-in modules (http2, net, tls, ...) without their embedded code cache: ~20 ms more CPU per
 * member start. `--max-semi-space-size=2` would keep a loaded member ~15 MiB smaller, `--optimize-for-size` ~25
 * MiB, the latter at 20–40 % more CPU per put (docs/lab-engine.md, Numbers).
 */
export const memberNodeFlags: readonly string[] = [];

/** realEtcdPath is the real etcd binary: $ETCD_LAB_REAL_ETCD or /usr/bin/etcd. */
export function realEtcdPath(): string {
  return process.env["ETCD_LAB_REAL_ETCD"] || "/usr/bin/etcd";
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** resolveMemberBinary returns how to run `backend`, or throws BackendUnavailable saying why not. */
export function resolveMemberBinary(backend: Backend): MemberBinary {
  if (backend === "ours") {
    const bundle = join(repoRoot(), "dist", "etcd.cjs");
    if (!existsSync(bundle)) {
      throw new BackendUnavailable(`our etcd is not built: ${bundle} is missing (run npm run build)`);
    }
    return {
      backend,
      command: process.execPath,
      argsPrefix: [...memberNodeFlags, bundle],
      faultChannel: true,
      capabilities: capabilitiesOf(backend),
    };
  }
  const path = realEtcdPath();
  if (!executable(path)) {
    throw new BackendUnavailable(
      `real etcd not found at ${path} (install Debian's etcd-server or set ETCD_LAB_REAL_ETCD)`,
    );
  }
  return { backend, command: path, argsPrefix: [], faultChannel: false, capabilities: capabilitiesOf(backend) };
}

const versions = new Map<string, Promise<string>>();

/** memberVersion runs `<binary> --version` once and returns its first line's version ("3.4.23"). */
export function memberVersion(bin: MemberBinary): Promise<string> {
  const key = [bin.command, ...bin.argsPrefix].join(" ");
  let v = versions.get(key);
  if (!v) {
    v = new Promise((resolve) => {
      execFile(bin.command, [...bin.argsPrefix, "--version"], { timeout: 10_000 }, (err, stdout) => {
        const m = /Version:\s*(\S+)/.exec(stdout);
        resolve(err || !m?.[1] ? "unknown" : m[1]);
      });
    });
    versions.set(key, v);
  }
  return v;
}
