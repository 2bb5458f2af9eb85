// auger (github.com/etcd-io/auger, formerly jpbetz/auger): decodes what kube-apiserver stores in etcd.
// `auger decode` reads a value as `etcdctl get <key> --print-value-only` prints it and writes the object as
// YAML (default), JSON or the raw protobuf payload. Like auger it finds the "k8s\0" magic, or the first valid
// JSON, anywhere in its input (so a key line before the value is fine), and anything else — an encrypted
// value among them — is "not valid JSON or binary data". Built-in kinds are decoded with this lab's
// Kubernetes types (engine/kube/api), as auger decodes with the types it was built against. Only `decode`
// is here; the root keeps auger's usage and main's habit of printing a failed command's error twice.
import { readFileSync } from "node:fs";
import { decodeObject, encodeProtobuf, messageOf, StorageDecodeError } from "../../kube/api/codec.ts";
import { protoPrefix, unwrapObject } from "../../kube/api/envelope.ts";
import { goJson } from "../../kube/api/json.ts";
import type { JsonValue, KubeObject } from "../../kube/api/object.ts";
import { Command, CommandError } from "../cobra/command.ts";
import { newCompletionCommandFor } from "../cobra/completion-command.ts";
import { ExitSignal, type CliIo } from "../cobra/io.ts";
import { cobraUsage } from "../cobra/usage-cobra.ts";
import { marshalYaml } from "../kubectl/printers/yaml.ts";

const storageBinary = "application/vnd.kubernetes.storagebinary";
const jsonMedia = "application/json";
const yamlMedia = "application/yaml";
const protobufMedia = "application/vnd.kubernetes.protobuf";

/** scheme is how auger's runtime.Scheme names itself in "no kind is registered" errors. */
const scheme = "github.com/etcd-io/auger/pkg/scheme/init.go:27";

const decodeLong = `
Decodes kubernetes objects from the binary key-value store encoding used
with etcd 3+.

Outputs data in a variety of formats including YAML, JSON and Protobuf.

YAML and JSON output conversion is performed using api-machinery
serializers and type declarations from the version of kubernetes
source this tool was built against. As a result, output may differ
from what is stored if the type declarations from the kubernetes
version that stored the data and the version of this tool are not
identical. If a type declaration has an incompatible change, or if a
type has been removed entirely, conversion may fail.

The binary format contains an "encoding prefix", an envelope (defined
by runtime.Unknown), and a protobuf payload.  The envelope contains
'meta' fields identifying the payload type.

Protobuf output requires no conversions and returns the exact bytes
of the protobuf payload.`;

const decodeExample = `
        ETCDCTL_API=3 etcdctl get /registry/pods/default/<pod-name> \\
        --print-value-only | auger decode`;

type Media = typeof storageBinary | typeof jsonMedia;

/** toMediaType is encoding.ToMediaType: the --output value's media type. */
function toMediaType(out: string): string {
  if (out === "yaml") return yamlMedia;
  if (out === "json") return jsonMedia;
  if (out === "proto") return protobufMedia;
  throw new CommandError(`unrecognized 'out' flag value: ${out}`);
}

const fail = (msg: string): never => {
  throw new CommandError(msg);
};

/** stripNewline drops the one newline etcdctl --print-value-only adds. */
function stripNewline(d: Uint8Array): Uint8Array {
  return d.length > 0 && d[d.length - 1] === 0x0a ? d.subarray(0, d.length - 1) : d;
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.byteLength).indexOf(Buffer.from(needle));
}

/** detectAndExtract is encoding.DetectAndExtract: the protobuf from the magic on, else the first valid JSON. */
function detectAndExtract(input: Uint8Array): { media: Media; data: Uint8Array } {
  const at = indexOf(input, protoPrefix);
  if (at >= 0) return { media: storageBinary, data: input.subarray(at) };
  const text = new TextDecoder().decode(input);
  for (let i = text.search(/[{[]/); i >= 0;) {
    const rest = text.slice(i);
    if (rest.length < 2) break;
    try {
      JSON.parse(rest);
      return { media: jsonMedia, data: new TextEncoder().encode(rest.trim()) };
    } catch {
      const next = rest.slice(1).search(/[{[]/);
      i = next < 0 ? -1 : i + 1 + next;
    }
  }
  return fail("error reading input, does not appear to contain valid JSON or binary data");
}

/** typeMeta is encoding.DecodeTypeMeta. */
function typeMeta(media: Media, data: Uint8Array): { apiVersion: string; kind: string } {
  if (media === storageBinary) {
    const env = unwrapEnvelope(data);
    return { apiVersion: env.apiVersion, kind: env.kind };
  }
  const v = JSON.parse(new TextDecoder().decode(data)) as JsonValue;
  if (v === null || typeof v !== "object" || Array.isArray(v))
    return fail(
      `json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v} into Go value of type runtime.TypeMeta`,
    );
  const str = (x: JsonValue | undefined) => (typeof x === "string" ? x : "");
  return { apiVersion: str(v.apiVersion), kind: str(v.kind) };
}

function unwrapEnvelope(data: Uint8Array) {
  try {
    const env = unwrapObject(data);
    if (env) return env;
  } catch {
    // gogo's Unmarshal of a truncated or corrupt runtime.Unknown
  }
  return fail("unexpected EOF");
}

/** decodeBinary is runtime.Decode with auger's scheme of a stored built-in object. */
function decodeBinary(data: Uint8Array): KubeObject {
  const env = unwrapEnvelope(data);
  if (!messageOf(env))
    fail(
      `error decoding from ${storageBinary}: no kind "${env.kind}" is registered for version "${env.apiVersion}" in scheme "${scheme}"`,
    );
  try {
    return decodeObject(data);
  } catch (e) {
    if (e instanceof StorageDecodeError) return fail(`error decoding from ${storageBinary}: ${e.message}`);
    throw e;
  }
}

/** convert is encoding.Convert: the output bytes for one stored value. */
function convert(media: Media, out: string, data: Uint8Array): Uint8Array | string {
  if (media === storageBinary && out === protobufMedia) return unwrapEnvelope(data).raw;
  const type = typeMeta(media, data);
  if (media === jsonMedia && out === jsonMedia) return `${new TextDecoder().decode(data)}\n`;
  if (media === jsonMedia && out === yamlMedia)
    return marshalYaml(JSON.parse(new TextDecoder().decode(data)) as JsonValue);
  if (media === jsonMedia) {
    // JSON to protobuf goes through the scheme: only the kinds auger knows.
    if (!messageOf(type))
      fail(
        `error decoding from ${jsonMedia}: no kind "${type.kind}" is registered for version "${type.apiVersion}" in scheme "${scheme}"`,
      );
    const obj = JSON.parse(new TextDecoder().decode(data)) as KubeObject;
    return encodeProtobuf(type, obj);
  }
  const obj = decodeBinary(data);
  return out === jsonMedia ? `${goJson(obj as unknown as JsonValue)}\n` : marshalYaml(obj as unknown as JsonValue);
}

function summary(media: Media, data: Uint8Array): string {
  const t = typeMeta(media, data);
  return `TypeMeta.APIVersion: ${t.apiVersion}\nTypeMeta.Kind: ${t.kind}\n`;
}

/** goHexDecode is hex.DecodeString, with its error texts. */
function goHexDecode(s: string): Uint8Array {
  const bad = /[^0-9a-fA-F]/.exec(s);
  if (bad) {
    const cp = bad[0].codePointAt(0) as number;
    throw new Error(`encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, "0")} '${bad[0]}'`);
  }
  if (s.length % 2 !== 0) throw new Error("encoding/hex: odd length hex string");
  return new Uint8Array(Buffer.from(s, "hex"));
}

/** batch is --batch-process: hex values one a line (etcd-dump-logs' decoder protocol), OK|... or ERROR:...|. */
function batch(io: CliIo, metaOnly: boolean, out: string): void {
  const text = new TextDecoder().decode(io.readStdin());
  let lineNum = 0;
  // bufio ReadBytes('\n'): a last line without a newline ends the input unread, as in auger.
  for (const line of text.split("\n").slice(0, -1)) {
    let value: Uint8Array;
    try {
      value = goHexDecode(line);
    } catch (e) {
      return fail(`error decoding input on line ${lineNum} of --batch-process input: ${(e as Error).message}`);
    }
    let media: { media: Media; data: Uint8Array };
    try {
      media = detectAndExtract(value);
    } catch (e) {
      io.stdout(`ERROR:${(e as Error).message}|\n`);
      continue;
    }
    const result = (): string => {
      const r = metaOnly ? summary(media.media, media.data) : convert(media.media, out, media.data);
      return typeof r === "string" ? r : Buffer.from(r).toString("latin1");
    };
    try {
      io.stdout(`OK|${result()}\n`);
    } catch (e) {
      if (!(e instanceof CommandError)) throw e;
      io.stdout(`ERROR:${e.message}|\n`);
    }
    if (!metaOnly) lineNum++;
  }
}

function newDecodeCommand(io: () => CliIo): Command {
  const cmd = new Command({
    use: "decode",
    short: "Decode objects from the kubernetes binary key-value store encoding.",
    long: decodeLong,
    example: decodeExample,
    run: (c) => {
      const out = toMediaType(c.flags().getString("output"));
      const metaOnly = c.flags().getBool("meta-only");
      if (c.flags().getBool("batch-process")) return batch(io(), metaOnly, out);
      const file = c.flags().getString("file");
      let input: Uint8Array;
      if (file) {
        try {
          input = stripNewline(readFileSync(file));
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          const why =
            code === "ENOENT"
              ? "no such file or directory"
              : code === "EISDIR"
                ? "is a directory"
                : (e as Error).message;
          return fail(`error reading input file ${file}: open ${file}: ${why}`);
        }
      } else {
        input = stripNewline(io().readStdin());
      }
      if (input.length === 0) fail("no input data");
      const { media, data } = detectAndExtract(input);
      const result = metaOnly ? summary(media, data) : convert(media, out, data);
      io().stdout(result);
    },
  });
  cmd.flags().string("output", "o", "yaml", "Output format. One of: json|yaml|proto");
  cmd.flags().bool("meta-only", "", false, "Output only content type and metadata fields");
  cmd.flags().string("file", "", "", "Filename to read storage encoded data from");
  cmd.flags().bool("batch-process", "", false, "If set, deccode batch of objects from os.Stdin");
  return cmd;
}

/** newAugerCommand builds auger's command tree for one run (decode; cobra's completion and help). */
export function newAugerCommand(io: CliIo): Command {
  const root = new Command({
    use: "auger",
    short: "Inspect and analyze kubernetes storage data.",
    long: "Inspect and analyze kubernetes objects in binary storage\nencoding used with etcd 3+ and boltdb.",
  });
  root.usageFn = cobraUsage;
  // cobra's default help template: the long (or short) description, then the usage.
  root.helpFn = (cmd) => {
    const about = (cmd.long || cmd.short).replace(/\s+$/u, "");
    cmd.outOrStdout()(`${about ? `${about}\n\n` : ""}${cmd.usageString()}`);
  };
  const getIo = () => io;
  root.addCommand(newDecodeCommand(getIo), newCompletionCommandFor(getIo, "auger"));
  return root;
}

/** runAuger runs auger with `args` (os.Args[1:]) and returns its exit status. */
export async function runAuger(io: CliIo, args: string[]): Promise<number> {
  try {
    const err = await newAugerCommand(io).execute(io, args);
    if (!err) return 0;
    io.stdout(`${err.message}\n`); // main: fmt.Println(err) after cobra printed it
    return 1;
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    throw e;
  }
}
