// age's key parsing with age 1.1.1's error texts: recipients (`age1…`, recipient files), identities
// (`AGE-SECRET-KEY-1…`, identity files). Keys that age accepts here are handed to the age-encryption package
// as strings; the checks only reproduce which string age rejects and how it says so.

import { bech32Decode, Bech32Error } from "./bech32.ts";
import { goQuote } from "../../go/go-strconv.ts";

/** AgeKeyError is a rejected key or key file, its message worded as age's. */
export class AgeKeyError extends Error {
  override name = "AgeKeyError";
  /** hints are age's `age: hint:` lines for this error. */
  constructor(
    message: string,
    readonly hints: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A Recipient age can encrypt to here: a native X25519 key, or a plugin recipient (whose plugin is missing). */
export type ParsedRecipient = { kind: "x25519"; key: string } | { kind: "plugin"; key: string; plugin: string };

function bech32Message(e: unknown): string {
  if (e instanceof Bech32Error) return e.message;
  throw e;
}

/** scanLines is bufio.ScanLines: lines without their "\n" or trailing "\r", no empty last line. */
export function scanLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** parseX25519Recipient is age.ParseX25519Recipient. */
export function parseX25519Recipient(s: string): string {
  let decoded: { hrp: string; data: Uint8Array };
  try {
    decoded = bech32Decode(s);
  } catch (e) {
    throw new AgeKeyError(`malformed recipient ${goQuote(s)}: ${bech32Message(e)}`);
  }
  if (decoded.hrp !== "age")
    throw new AgeKeyError(`malformed recipient ${goQuote(s)}: invalid type ${goQuote(decoded.hrp)}`);
  if (decoded.data.length !== 32) throw new AgeKeyError(`malformed recipient ${goQuote(s)}: invalid X25519 public key`);
  return s;
}

/** parseRecipient is cmd/age's parseRecipient: one -r value. */
export function parseRecipient(arg: string): ParsedRecipient {
  if (arg.startsWith("age1") && arg.split("1").length - 1 > 1) {
    let hrp: string;
    try {
      hrp = bech32Decode(arg).hrp;
    } catch (e) {
      throw new AgeKeyError(`invalid recipient encoding ${goQuote(arg)}: ${bech32Message(e)}`);
    }
    if (!hrp.startsWith("age1")) throw new AgeKeyError(`not a plugin recipient ${goQuote(arg)}: invalid type`);
    return { kind: "plugin", key: arg, plugin: hrp.slice("age1".length) };
  }
  if (arg.startsWith("age1")) return { kind: "x25519", key: parseX25519Recipient(arg) };
  if (arg.startsWith("ssh-")) {
    throw new AgeKeyError(`SSH recipients are not supported by this lab's age: use an age1... recipient`);
  }
  if (arg.startsWith("github:")) {
    const user = arg.slice("github:".length);
    throw new AgeKeyError(`"github:" recipients were removed from the design`, [
      "instead, use recipient files like",
      `    curl -O https://github.com/${user}.keys`,
      `    age -R ${user}.keys`,
    ]);
  }
  throw new AgeKeyError(`unknown recipient type: ${goQuote(arg)}`);
}

/** parseRecipientsText is the body of cmd/age's parseRecipientsFile (errors without the file-name wrapping). */
export function parseRecipientsText(name: string, text: string): ParsedRecipient[] {
  const recs: ParsedRecipient[] = [];
  let n = 0;
  for (const line of scanLines(text)) {
    n++;
    if (line.startsWith("#") || line === "") continue;
    if (line.length > 8 << 10) throw new AgeKeyError(`${goQuote(name)}: line ${n} is too long`);
    try {
      recs.push(parseRecipient(line));
    } catch (e) {
      if (!(e instanceof AgeKeyError)) throw e;
      // age hides the reason: the line might be a secret pasted into the wrong file.
      throw new AgeKeyError(`${goQuote(name)}: malformed recipient at line ${n}`);
    }
  }
  if (recs.length === 0) throw new AgeKeyError(`${goQuote(name)}: no recipients found`);
  return recs;
}

/** parseX25519Identity is age.ParseX25519Identity; it returns the key as given. */
export function parseX25519Identity(s: string): string {
  let decoded: { hrp: string; data: Uint8Array };
  try {
    decoded = bech32Decode(s);
  } catch (e) {
    throw new AgeKeyError(`malformed secret key: ${bech32Message(e)}`);
  }
  if (decoded.hrp !== "AGE-SECRET-KEY-")
    throw new AgeKeyError(`malformed secret key: unknown type ${goQuote(decoded.hrp)}`);
  if (decoded.data.length !== 32) throw new AgeKeyError(`malformed secret key: invalid X25519 secret key`);
  return s;
}

/**
 * parseIdentitiesText is age.ParseIdentities (age-keygen -y) or, with `cli`, cmd/age's parseIdentities, which
 * also knows plugin identities: each non-comment line one key.
 */
export function parseIdentitiesText(text: string, cli: boolean): string[] {
  const ids: string[] = [];
  let n = 0;
  for (const line of scanLines(text)) {
    n++;
    if (line.startsWith("#") || line === "") continue;
    try {
      if (cli && line.startsWith("AGE-PLUGIN-")) {
        throw new AgeKeyError(`plugin identities are not supported by this lab's age`);
      }
      if (cli && !line.startsWith("AGE-SECRET-KEY-1")) throw new AgeKeyError("unknown identity type");
      ids.push(parseX25519Identity(line));
    } catch (e) {
      if (!(e instanceof AgeKeyError)) throw e;
      throw new AgeKeyError(`error at line ${n}: ${e.message}`);
    }
  }
  if (ids.length === 0) throw new AgeKeyError("no secret keys found");
  return ids;
}
