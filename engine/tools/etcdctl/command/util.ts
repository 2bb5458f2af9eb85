// Helpers shared by etcdctl commands (ctlv3/command/util.go and clientv3's op helpers).

import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goQuote, parseIntBig, parseUintBig, NumError } from "../../../go/go-strconv.ts";
import type { Ctl } from "../global.ts";

/**
 * isSerializable is util.go's IsSerializable. Its error names the *get* command's --consistency value (a
 * package variable in etcd), which is why `member list --consistency=x` reports `"l"`.
 */
export function isSerializable(ctl: Ctl, option: string, reported = option): boolean {
  if (option === "s") return true;
  if (option === "l") return false;
  return exitWithError(ctl.io, ExitCode.badFeature, `unknown consistency flag ${goQuote(reported)}`);
}

/** prefixRangeEnd is clientv3's getPrefix: the key after every key with this prefix ("\x00" if none). */
export function prefixRangeEnd(key: Uint8Array): Uint8Array<ArrayBuffer> {
  const end = Uint8Array.from(key);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.slice(0, i + 1);
    }
  }
  return new Uint8Array([0]);
}

/** parseHexID parses a member ID (strconv.ParseUint(s, 16, 64)), exiting 128 with etcd's message. */
export function parseMemberID(ctl: Ctl, arg: string): bigint {
  try {
    return parseUintBig(arg, 16, 64);
  } catch (e) {
    return exitWithError(ctl.io, ExitCode.badArgs, `bad member ID arg (${(e as Error).message}), expecting ID in Hex`);
  }
}

/** leaseFromArgs parses a lease ID (strconv.ParseInt(s, 16, 64)), exiting 128 with etcd's message. */
export function leaseFromArgs(ctl: Ctl, arg: string): bigint {
  try {
    return parseIntBig(arg, 16, 64);
  } catch (e) {
    return exitWithError(ctl.io, ExitCode.badArgs, `bad lease ID arg (${(e as Error).message}), expecting ID in Hex`);
  }
}

/** isNumError tells strconv errors apart from others. */
export function isNumError(e: unknown): e is NumError {
  return e instanceof NumError;
}
