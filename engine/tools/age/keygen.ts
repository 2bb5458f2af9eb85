// The `age-keygen` command (age 1.1.1): generate a native X25519 key pair (`# created:`, `# public key:`, the
// secret key), to standard output or to a new 0600 file with -o (never overwriting); `Public key: age1…` on
// standard error unless the key goes to a terminal; `-y` turns an identity file into its recipients. Messages
// and exit statuses are age-keygen's.

import { fstatSync, openSync, readFileSync, writeSync, closeSync } from "node:fs";
import { generateX25519Identity, identityToRecipient } from "age-encryption";
import { goFsError } from "../../go/go-errors.ts";
import { goQuote } from "../../go/go-strconv.ts";
import { ExitSignal, type CliIo } from "../cobra/io.ts";
import { parseGoFlags } from "./go-flag.ts";
import { AgeKeyError, parseIdentitiesText } from "./keys.ts";

/** keygenUsage is age-keygen's usage screen. */
export const keygenUsage = `Usage:
    age-keygen [-o OUTPUT]
    age-keygen -y [-o OUTPUT] [INPUT]

Options:
    -o, --output OUTPUT       Write the result to the file at path OUTPUT.
    -y                        Convert an identity file to a recipients file.

age-keygen generates a new native X25519 key pair, and outputs it to
standard output or to the OUTPUT file.

If an OUTPUT file is specified, the public key is printed to standard error.
If OUTPUT already exists, it is not overwritten.

In -y mode, age-keygen reads an identity file from INPUT or from standard
input and writes the corresponding recipient(s) to OUTPUT or to standard
output, one per line, with no comments.

Examples:

    $ age-keygen
    # created: 2021-01-02T15:30:45+01:00
    # public key: age1lvyvwawkr0mcnnnncaghunadrqkmuf9e6507x9y920xxpp866cnql7dp2z
    AGE-SECRET-KEY-1N9JEPW6DWJ0ZQUDX63F5A03GX8QUW7PXDE39N8UYF82VZ9PC8UFS3M7XA9

    $ age-keygen -o key.txt
    Public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p

    $ age-keygen -y key.txt
    age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p`;

class KeygenFailure extends Error {}

function fail(message: string): never {
  throw new KeygenFailure(message);
}

/** rfc3339 is Go's time.Now().Format(time.RFC3339) in the local zone ("Z" for UTC). */
export function rfc3339(ms: number): string {
  const d = new Date(ms);
  const offMin = -d.getTimezoneOffset();
  const local = new Date(ms + offMin * 60_000);
  const base = local.toISOString().slice(0, 19);
  if (offMin === 0) return `${base}Z`;
  const sign = offMin < 0 ? "-" : "+";
  const abs = Math.abs(offMin);
  return `${base}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** generateKeyFile is what age-keygen writes: the creation time, the public key comment and the secret key. */
export async function generateKeyFile(nowMs: number): Promise<{ text: string; recipient: string; identity: string }> {
  const identity = await generateX25519Identity();
  const recipient = await identityToRecipient(identity);
  const text = `# created: ${rfc3339(nowMs)}\n# public key: ${recipient}\n${identity}\n`;
  return { text, recipient, identity };
}

/** runAgeKeygen runs `age-keygen` with `args` and returns its exit status. */
export async function runAgeKeygen(io: CliIo, args: readonly string[]): Promise<number> {
  let fd: number | undefined;
  try {
    let version = false;
    let convert = false;
    let out = "";
    const flags = {
      version: { bool: true, set: (v: string) => (version = v === "true") },
      y: { bool: true, set: (v: string) => (convert = v === "true") },
      o: { bool: false, set: (v: string) => (out = v) },
      output: { bool: false, set: (v: string) => (out = v) },
    };
    const rest = parseGoFlags(io, args, flags, keygenUsage);
    if (rest.length !== 0 && !convert) fail("too many arguments");
    if (rest.length > 1 && convert) fail("too many arguments");
    if (version) {
      io.stdout("1.1.1\n");
      return 0;
    }
    if (out !== "") {
      try {
        fd = openSync(out, "wx", 0o600);
      } catch (e) {
        fail(`failed to open output file ${goQuote(out)}: ${goFsError(e, "open", out)}`);
      }
    }
    const write = (s: string) => (fd === undefined ? io.stdout(s) : writeSync(fd, s));
    const inFile = rest[0] ?? "";
    let input: () => string = () => Buffer.from(io.readStdin()).toString("utf8");
    if (inFile !== "" && inFile !== "-") {
      let text: string;
      try {
        text = readFileSync(inFile, "utf8");
      } catch (e) {
        fail(`failed to open input file ${goQuote(inFile)}: ${goFsError(e, "open", inFile)}`);
      }
      input = () => text;
    }
    if (convert) {
      let ids: string[];
      try {
        ids = parseIdentitiesText(input(), false);
      } catch (e) {
        if (e instanceof AgeKeyError) fail(`failed to parse input: ${e.message}`);
        throw e;
      }
      for (const id of ids) write(`${await identityToRecipient(id)}\n`);
      return 0;
    }
    const stat = fstatSync(fd ?? 1);
    if (stat.isFile() && (stat.mode & 0o004) !== 0)
      io.stderr("age-keygen: warning: writing secret key to a world-readable file\n");
    const key = await generateKeyFile(io.nowMs());
    if (fd !== undefined || !io.isTerminal(1)) io.stderr(`Public key: ${key.recipient}\n`);
    write(key.text);
    return 0;
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    if (!(e instanceof KeygenFailure)) throw e;
    io.stderr(`age-keygen: error: ${e.message}\n`);
    io.stderr("age-keygen: report unexpected or unhelpful errors at https://filippo.io/age/report\n");
    return 1;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
