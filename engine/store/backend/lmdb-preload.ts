// lmdb-preload sets, just before lmdb is first required, two settings its dependencies read at load time;
// both skip start-up work a member never needs (import it before "lmdb"; lmdb-file.ts does). Measured on this
// machine: requiring lmdb took 124–178 ms, of which detect-libc (with child_process) 30–70 ms and msgpackr's
// native addon about 20 ms.
// - LIBC: node-gyp-build asks detect-libc which C library this Linux has, and detect-libc loads child_process to
//   be able to ask. The answer is in /usr/bin/ldd, which detect-libc itself reads first; read it here.
// - MSGPACKR_NATIVE_ACCELERATION_DISABLED: msgpackr loads a native MessagePack decoder. The backend stores raw
//   bytes (encoding "binary"), so msgpackr never decodes anything.
// restoreLmdbEnv() removes what was set, so no child process inherits it.
import { readFileSync } from "node:fs";

const setHere: string[] = [];

function setIfUnset(name: string, value: string | undefined): void {
  if (value === undefined || process.env[name] !== undefined) return;
  process.env[name] = value;
  setHere.push(name);
}

/** libcFamily names the C library from /usr/bin/ldd's text, as detect-libc does (undefined: unknown). */
function libcFamily(): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const ldd = readFileSync("/usr/bin/ldd", "latin1");
    if (ldd.includes("musl")) return "musl";
    if (ldd.includes("GNU C Library")) return "glibc";
  } catch {
    // no ldd: detect-libc finds out its own way
  }
  return undefined;
}

setIfUnset("LIBC", libcFamily());
setIfUnset("MSGPACKR_NATIVE_ACCELERATION_DISABLED", "true");

/** restoreLmdbEnv removes the variables this module set (call it once lmdb is loaded). */
export function restoreLmdbEnv(): void {
  for (const name of setHere.splice(0)) delete process.env[name];
}
