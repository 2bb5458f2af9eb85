// The lab's `rclone` (rclone 1.60): the commands a backup job uses against an S3-compatible endpoint —
// `copyto`, `copy`, `rcat`, `lsf`, `ls`, `version` — with rclone's flags for it (--no-check-dest,
// --s3-no-check-bucket, --s3-no-head, -v/-q, --config, --retries), its remotes from the config file and
// RCLONE_CONFIG_<REMOTE>_* variables, and its behaviour where a write-only key shows: without --no-check-dest
// copyto HEADs the destination first and fails `Forbidden: Forbidden`; without --s3-no-check-bucket it tries
// CreateBucket; without --s3-no-head it HEADs what it uploaded; copy and copyto retry three times; log lines,
// usage errors and exit codes as rclone prints them. Only the s3 backend (and local paths) exist here.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { goQuote } from "../../go/go-strconv.ts";
import type { CliIo } from "../cobra/io.ts";
import { defaultConfigPath, RcloneConfig } from "./config.ts";
import { Level, RcloneLog } from "./log.ts";
import { AwsError, NetworkError, S3Client } from "./s3-client.ts";

const helpFooter = `Use "rclone [command] --help" for more information about a command.
Use "rclone help flags" for to see the global flags.
Use "rclone help backends" for a list of supported services.
`;

/** Command is one rclone command: its usage line, its own flags' help, and its argument counts. */
interface CommandSpec {
  use: string;
  short: string;
  flagsHelp: string;
  min: number;
  max: number;
}

const commands: Record<string, CommandSpec> = {
  copy: {
    use: "copy source:path dest:path",
    short: "Copy files from source to dest, skipping identical files.",
    flagsHelp: `      --create-empty-src-dirs   Create empty source dirs on destination after copy
  -h, --help                    help for copy`,
    min: 2,
    max: 2,
  },
  copyto: {
    use: "copyto source:path dest:path",
    short: "Copy files from source to dest, skipping identical files.",
    flagsHelp: `  -h, --help   help for copyto`,
    min: 2,
    max: 2,
  },
  ls: {
    use: "ls remote:path",
    short: "List the objects in the path with size and path.",
    flagsHelp: `  -h, --help   help for ls`,
    min: 1,
    max: 1,
  },
  lsf: {
    use: "lsf remote:path",
    short: "List directories and objects in remote:path formatted for parsing.",
    flagsHelp: `      --absolute           Put a leading / in front of path names
      --csv                Output in CSV format
  -d, --dir-slash          Append a slash to directory names (default true)
      --dirs-only          Only list directories
      --files-only         Only list files
  -F, --format string      Output format - see  help for details (default "p")
      --hash h             Use this hash when h is used in the format MD5|SHA-1|DropboxHash (default "md5")
  -h, --help               help for lsf
  -R, --recursive          Recurse into the listing
  -s, --separator string   Separator for the items in the format (default ";")`,
    min: 1,
    max: 1,
  },
  rcat: {
    use: "rcat remote:path",
    short: "Copies standard input to file on remote.",
    flagsHelp: `  -h, --help       help for rcat
      --size int   File size hint to preallocate (default -1)`,
    min: 1,
    max: 1,
  },
  version: {
    use: "version",
    short: "Show the version number.",
    flagsHelp: `      --check   Check for new version\n  -h, --help    help for version`,
    min: 0,
    max: 0,
  },
};

function usageOf(name: string): string {
  const c = commands[name] as CommandSpec;
  return `Usage:\n  rclone ${c.use} [flags]\n\nFlags:\n${c.flagsHelp}\n\n${helpFooter}`;
}

function rootUsage(): string {
  const list = Object.entries(commands)
    .map(([n, c]) => `  ${n.padEnd(15)} ${c.short}`)
    .join("\n");
  return `Usage:\n  rclone [flags]\n  rclone [command]\n\nAvailable Commands:\n${list}\n\n${helpFooter}`;
}

/** Flags are the parsed global and command flags. */
interface Flags {
  config: string | undefined;
  verbose: number;
  quiet: boolean;
  noCheckDest: boolean;
  s3NoCheckBucket: boolean;
  s3NoHead: boolean;
  retries: number;
  recursive: boolean;
  filesOnly: boolean;
  dirsOnly: boolean;
  absolute: boolean;
  dirSlash: boolean;
  format: string;
  separator: string;
  help: boolean;
}

class UsageError extends Error {}

interface FlagDef {
  long: string;
  short?: string;
  kind: "bool" | "string" | "int" | "count";
  set(f: Flags, v: string): void;
}

const flagDefs: FlagDef[] = [
  { long: "config", kind: "string", set: (f, v) => (f.config = v) },
  { long: "verbose", short: "v", kind: "count", set: (f) => f.verbose++ },
  { long: "quiet", short: "q", kind: "bool", set: (f, v) => (f.quiet = v === "true") },
  { long: "no-check-dest", kind: "bool", set: (f, v) => (f.noCheckDest = v === "true") },
  { long: "s3-no-check-bucket", kind: "bool", set: (f, v) => (f.s3NoCheckBucket = v === "true") },
  { long: "s3-no-head", kind: "bool", set: (f, v) => (f.s3NoHead = v === "true") },
  { long: "retries", kind: "int", set: (f, v) => (f.retries = Number(v)) },
  { long: "recursive", short: "R", kind: "bool", set: (f, v) => (f.recursive = v === "true") },
  { long: "files-only", kind: "bool", set: (f, v) => (f.filesOnly = v === "true") },
  { long: "dirs-only", kind: "bool", set: (f, v) => (f.dirsOnly = v === "true") },
  { long: "absolute", kind: "bool", set: (f, v) => (f.absolute = v === "true") },
  { long: "dir-slash", short: "d", kind: "bool", set: (f, v) => (f.dirSlash = v === "true") },
  { long: "format", short: "F", kind: "string", set: (f, v) => (f.format = v) },
  { long: "separator", short: "s", kind: "string", set: (f, v) => (f.separator = v) },
  { long: "help", short: "h", kind: "bool", set: (f, v) => (f.help = v === "true") },
];

/** parseArgs is pflag's interspersed parsing: flags anywhere, `--` ends them. */
function parseArgs(args: readonly string[], getenv: (k: string) => string): { flags: Flags; positional: string[] } {
  const envBool = (k: string) => ["true", "1"].includes(getenv(k).toLowerCase());
  const flags: Flags = {
    config: getenv("RCLONE_CONFIG") || undefined,
    verbose: 0,
    quiet: false,
    noCheckDest: envBool("RCLONE_NO_CHECK_DEST"),
    s3NoCheckBucket: envBool("RCLONE_S3_NO_CHECK_BUCKET"),
    s3NoHead: envBool("RCLONE_S3_NO_HEAD"),
    retries: 3,
    recursive: false,
    filesOnly: false,
    dirsOnly: false,
    absolute: false,
    dirSlash: true,
    format: "p",
    separator: ";",
    help: false,
  };
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const def = flagDefs.find((d) => d.long === name);
      if (!def) throw new UsageError(`unknown flag: --${name}`);
      if (def.kind === "bool" || def.kind === "count") {
        def.set(flags, eq < 0 ? "true" : a.slice(eq + 1));
        continue;
      }
      const v = eq < 0 ? args[++i] : a.slice(eq + 1);
      if (v === undefined) throw new UsageError(`flag needs an argument: --${name}`);
      if (def.kind === "int" && !/^-?\d+$/.test(v)) {
        throw new UsageError(
          `invalid argument ${goQuote(v)} for "--${name}" flag: strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`,
        );
      }
      def.set(flags, v);
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j] as string;
        const def = flagDefs.find((d) => d.short === c);
        if (!def) throw new UsageError(`unknown shorthand flag: '${c}' in ${a}`);
        if (def.kind === "bool" || def.kind === "count") {
          def.set(flags, "true");
          continue;
        }
        const rest = a.slice(j + 1).replace(/^=/, "");
        const v = rest !== "" ? rest : args[++i];
        if (v === undefined) throw new UsageError(`flag needs an argument: '${c}' in -${c}`);
        def.set(flags, v);
        break;
      }
      continue;
    }
    positional.push(a);
  }
  return { flags, positional };
}

/** A failure of one operation, with rclone's exit code for its kind. */
class OpError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const dirNotFound = () => new OpError("directory not found", 3);

function asOpError(e: unknown): OpError {
  if (e instanceof OpError) return e;
  if (e instanceof AwsError) return e.code === "NoSuchBucket" ? dirNotFound() : new OpError(e.message);
  if (e instanceof NetworkError) return new OpError(e.message, 5);
  throw e;
}

/** Place is a parsed path: a local path, or a bucket and directory on a configured s3 remote. */
type Place =
  | { kind: "local"; abs: string }
  | {
      kind: "s3";
      remote: string;
      client: S3Client;
      bucket: string;
      dir: string;
      noCheckBucket: boolean;
      noHead: boolean;
    };

/** FsError is a path whose remote cannot be made (the command stops: "Failed to create file system for …"). */
class FsError extends Error {}

/** Rclone is one run: flags, config, log. */
class Rclone {
  private config: RcloneConfig | undefined;
  private readonly bucketsOk = new Set<string>();
  private readonly started: number;
  private transferredBytes = 0;
  private transferredFiles = 0;
  private totalFiles = 0;
  private checks = 0;

  constructor(
    private readonly io: CliIo,
    private readonly flags: Flags,
    readonly log: RcloneLog,
  ) {
    this.started = io.nowMs();
  }

  /** loadConfig reads the config file, with rclone's NOTICE when it is missing. */
  loadConfig(): RcloneConfig {
    if (this.config) return this.config;
    const getenv = (k: string) => this.io.getenv(k);
    const path = this.flags.config ?? defaultConfigPath(getenv);
    this.config = new RcloneConfig(path, getenv, this.io.environ());
    if (!this.config.found)
      this.log.log("notice", undefined, `Config file ${goQuote(path)} not found - using defaults`);
    return this.config;
  }

  /** place parses `arg`; `role` words the error ("source", "destination" or ""). */
  place(arg: string, role: string): Place {
    const m = /^([\w.+@ -]+):(.*)$/s.exec(arg);
    if (!m || (m[1] as string).startsWith("-")) return { kind: "local", abs: resolve(arg) };
    const remote = m[1] as string;
    const config = this.loadConfig();
    const failure = (why: string) =>
      new FsError(`Failed to create file system for ${role ? `${role} ` : ""}${goQuote(arg)}: ${why}`);
    if (!config.has(remote)) throw failure("didn't find section in config file");
    const type = config.get(remote, "type");
    if (type !== "s3") throw failure(`didn't find backend called ${goQuote(type)}`);
    const path = (m[2] as string).replace(/^\/+/, "");
    const slash = path.indexOf("/");
    const bucket = slash < 0 ? path : path.slice(0, slash);
    const dir = slash < 0 ? "" : path.slice(slash + 1).replace(/\/+$/, "");
    const region = config.get(remote, "region") || "us-east-1";
    const endpoint = config.get(remote, "endpoint") || `https://s3.${region}.amazonaws.com`;
    const client = new S3Client(
      {
        endpoint,
        accessKeyId: config.get(remote, "access_key_id"),
        secretAccessKey: config.get(remote, "secret_access_key"),
        region,
      },
      () => this.io.nowMs(),
    );
    const optBool = (k: string) => ["true", "1"].includes(config.get(remote, k).toLowerCase());
    return {
      kind: "s3",
      remote,
      client,
      bucket,
      dir,
      noCheckBucket: this.flags.s3NoCheckBucket || optBool("no_check_bucket"),
      noHead: this.flags.s3NoHead || optBool("no_head"),
    };
  }

  private fsName(p: Place): string {
    if (p.kind === "local") return `Local file system at ${p.abs}`;
    return p.dir ? `S3 bucket ${p.bucket} path ${p.dir}` : `S3 bucket ${p.bucket}`;
  }

  private key(p: Place & { kind: "s3" }, name: string): string {
    return p.dir ? `${p.dir}/${name}` : name;
  }

  /** upload puts `data` as `name` under `dst` the way the s3 backend's Put does (bucket check, put, head). */
  private async upload(
    dst: Place & { kind: "s3" },
    name: string,
    data: Uint8Array,
    mtimeMs: number,
    streaming: boolean,
  ): Promise<void> {
    if (!dst.noCheckBucket && !this.bucketsOk.has(dst.bucket)) {
      await dst.client.createBucket(dst.bucket);
      this.bucketsOk.add(dst.bucket);
      this.log.log("info", this.fsName(dst), `Bucket ${goQuote(dst.bucket)} created with ACL "private"`);
    }
    if (streaming) {
      this.log.log(
        "notice",
        this.fsName(dst),
        "Streaming uploads using chunk size 5Mi will have maximum file size of 48.828Gi",
      );
    }
    const key = this.key(dst, name);
    const type = contentType(name);
    if (streaming) await dst.client.multipartUpload(dst.bucket, key, data, 5 << 20, mtimeMs, type);
    else if (data.length >= 200 << 20) await dst.client.multipartUpload(dst.bucket, key, data, 5 << 20, mtimeMs, type);
    else await dst.client.putObject(dst.bucket, key, data, mtimeMs, type);
    // A streamed upload's size is unknown, so the backend reads the object back even with --s3-no-head.
    if (!dst.noHead || streaming) await dst.client.head(dst.bucket, key);
    this.transferredBytes += data.length;
    this.transferredFiles++;
  }

  /** copyOne copies a local file to dst/name, logging as operations.Copy; it returns the errors it counted. */
  private async copyOne(
    src: string,
    srcName: string,
    dst: Place,
    dstName: string,
    checkDest: boolean,
  ): Promise<OpError[]> {
    const data = readFileSync(src);
    const mtimeMs = statSync(src).mtimeMs;
    this.totalFiles++;
    if (dst.kind === "local") {
      const out = join(dst.abs, dstName);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, data);
      this.transferredBytes += data.length;
      this.transferredFiles++;
      this.log.log("info", srcName, `Copied (new)${dstName !== srcName ? ` to: ${dstName}` : ""}`);
      return [];
    }
    let replaced = false;
    if (checkDest && !this.flags.noCheckDest) {
      let existing: Awaited<ReturnType<S3Client["head"]>>;
      try {
        existing = await dst.client.head(dst.bucket, this.key(dst, dstName));
      } catch (e) {
        return [asOpError(e)];
      }
      if (existing) this.checks++;
      if (existing && existing.size === data.length && existing.etag === md5Hex(data)) {
        this.log.log("debug", srcName, "Unchanged skipping");
        this.totalFiles--;
        return [];
      }
      replaced = existing !== undefined;
    }
    try {
      await this.upload(dst, dstName, data, mtimeMs, false);
    } catch (e) {
      const err = asOpError(e);
      this.log.log("error", srcName, `Failed to copy: ${err.message}`);
      return [err];
    }
    this.log.log(
      "info",
      srcName,
      `Copied (${replaced ? "replaced existing" : "new"})${dstName !== srcName ? ` to: ${dstName}` : ""}`,
    );
    return [];
  }

  /** listLocal walks a local directory: its files' paths relative to it, sorted, or undefined if it is missing. */
  private listLocal(abs: string): string[] | undefined {
    try {
      if (!statSync(abs).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) out.push(relative(abs, p));
      }
    };
    walk(abs);
    return out;
  }

  /** copyDir is sync.CopyDir from a local directory: files already in dst (same size and MD5) are skipped. */
  private async copyDir(srcAbs: string, dst: Place, only?: string): Promise<OpError[]> {
    const files = only !== undefined ? [only] : this.listLocal(srcAbs);
    if (files === undefined) {
      this.log.log(
        "error",
        `Local file system at ${srcAbs}`,
        "error reading source root directory: directory not found",
      );
      return [dirNotFound()];
    }
    const existing = new Map<string, string>();
    if (dst.kind === "s3" && !this.flags.noCheckDest) {
      try {
        for (const o of await this.listAll(dst, true)) existing.set(o.name, `${o.size}:${o.etag}`);
      } catch (e) {
        const err = asOpError(e);
        if (err.exitCode !== 3) {
          this.log.log("error", this.fsName(dst), `error reading destination root directory: ${err.message}`);
          return [err];
        }
      }
    }
    const errors: OpError[] = [];
    for (const rel of files) {
      const abs = join(srcAbs, rel);
      const have = existing.get(rel);
      if (have !== undefined) {
        const data = readFileSync(abs);
        this.checks++;
        if (have === `${data.length}:${md5Hex(data)}`) {
          this.log.log("debug", rel, "Unchanged skipping");
          continue;
        }
      }
      errors.push(...(await this.copyOne(abs, rel, dst, rel, false)));
    }
    return errors;
  }

  /** withRetries runs `op` up to --retries times as cmd.Run does for copy and copyto. */
  async withRetries(command: string, op: () => Promise<OpError[]>): Promise<number> {
    const tries = Math.max(1, this.flags.retries);
    let last: OpError | undefined;
    for (let attempt = 1; attempt <= tries; attempt++) {
      this.totalFiles = 0;
      this.checks = 0;
      const errors = await op();
      if (errors.length === 0) {
        last = undefined;
        break;
      }
      last = errors[errors.length - 1] as OpError;
      this.log.log(
        "error",
        undefined,
        `Attempt ${attempt}/${tries} failed with ${errors.length} errors and: ${last.message}`,
      );
    }
    this.printStats(last !== undefined);
    if (last) {
      this.log.fatal(`Failed to ${command}: ${last.message}`);
      return last.exitCode;
    }
    return 0;
  }

  private printStats(errored: boolean): void {
    if (this.log.level < Level.info) return;
    const secs = (this.io.nowMs() - this.started) / 1000;
    const b = sizeSuffix(this.transferredBytes);
    const pct = (n: number, of: number) => (of === 0 ? "-" : `${Math.round((n * 100) / of)}%`);
    let s = `\nTransferred:   \t${b.padStart(13)} / ${b}, ${pct(this.transferredBytes, this.transferredBytes)}, 0 B/s, ETA -\n`;
    if (errored) s += `Errors:        ${String(1).padStart(10)} (retrying may help)\n`;
    if (this.checks > 0) s += `Checks:        ${String(this.checks).padStart(10)} / ${this.checks}, 100%\n`;
    if (this.totalFiles > 0) {
      s += `Transferred:   ${String(this.transferredFiles).padStart(10)} / ${this.totalFiles}, ${pct(this.transferredFiles, this.totalFiles)}\n`;
    }
    s += `Elapsed time:  ${`${secs.toFixed(1)}s`.padStart(11)}\n`;
    this.log.log("info", undefined, s);
  }

  /** copyto copies one file to a new name (operations.CopyFile), or a directory as copy does. */
  async copyto(srcArg: string, dstArg: string): Promise<number> {
    const src = this.place(srcArg, "source");
    if (src.kind !== "local")
      throw new FsError(
        `Failed to create file system for source ${goQuote(srcArg)}: this lab's rclone copies from local paths only`,
      );
    const slash = dstArg.lastIndexOf("/");
    const colon = dstArg.indexOf(":");
    const cut = Math.max(slash, colon);
    const dstDirArg = dstArg.slice(0, cut + 1);
    const dstName = dstArg.slice(cut + 1);
    const dst = this.place(dstDirArg === "" ? "." : dstDirArg, "destination");
    let isFile = false;
    try {
      isFile = statSync(src.abs).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) {
      const dstFull = this.place(dstArg, "destination");
      return this.withRetries("copyto", () => this.copyDir(src.abs, dstFull));
    }
    return this.withRetries("copyto", () => this.copyOne(src.abs, basename(src.abs), dst, dstName, true));
  }

  /** copy copies a file or a directory's files into a destination directory. */
  async copy(srcArg: string, dstArg: string): Promise<number> {
    const src = this.place(srcArg, "source");
    if (src.kind !== "local")
      throw new FsError(
        `Failed to create file system for source ${goQuote(srcArg)}: this lab's rclone copies from local paths only`,
      );
    const dst = this.place(dstArg, "destination");
    let isFile = false;
    try {
      isFile = statSync(src.abs).isFile();
    } catch {
      isFile = false;
    }
    if (isFile) return this.withRetries("copy", () => this.copyDir(dirname(src.abs), dst, basename(src.abs)));
    return this.withRetries("copy", () => this.copyDir(src.abs, dst));
  }

  /** rcat uploads standard input (operations.RcatSize with an unknown size). */
  async rcat(dstArg: string): Promise<number> {
    const slash = dstArg.lastIndexOf("/");
    const colon = dstArg.indexOf(":");
    const cut = Math.max(slash, colon);
    const dst = this.place(dstArg.slice(0, cut + 1) || ".", "destination");
    const name = dstArg.slice(cut + 1);
    const data = this.io.readStdin();
    const nowMs = this.io.nowMs();
    let errors = 0;
    let last: OpError | undefined;
    if (dst.kind === "local") {
      mkdirSync(dst.abs, { recursive: true });
      writeFileSync(join(dst.abs, name), data);
      return 0;
    }
    const streaming = data.length >= 100 * 1024;
    try {
      await this.upload(dst, name, data, nowMs, streaming);
      if (!streaming) this.log.log("info", name, "Copied (new)");
    } catch (e) {
      last = asOpError(e);
      if (!streaming) {
        this.log.log("error", name, `Failed to copy: ${last.message}`);
        errors++;
      }
      this.log.log("error", name, `Post request rcat error: ${last.message}`);
      errors++;
    }
    if (!last) return 0;
    // A streamed upload counts its error twice (the transfer and the command); a small one prints it plainly.
    if (streaming) this.log.fatal(`Failed to rcat with ${errors + 1} errors: last error was: ${last.message}`);
    else this.log.fatal(`Failed to rcat: ${last.message}`);
    return last.exitCode;
  }

  /** listAll lists the objects under an s3 place (all of them with `recursive`), names relative to its dir. */
  private async listAll(
    p: Place & { kind: "s3" },
    recursive: boolean,
  ): Promise<{ name: string; size: number; etag: string; modified: string; dir: boolean }[]> {
    const out: { name: string; size: number; etag: string; modified: string; dir: boolean }[] = [];
    if (p.bucket === "") {
      for (const b of await p.client.listBuckets()) {
        out.push({ name: b.name, size: -1, etag: "", modified: b.created, dir: true });
        if (recursive) {
          const sub = await this.listAll({ ...p, bucket: b.name, dir: "" }, true);
          for (const o of sub) out.push({ ...o, name: `${b.name}/${o.name}` });
        }
      }
      return out;
    }
    const prefix = p.dir ? `${p.dir}/` : "";
    let marker: string | undefined;
    const seenDirs = new Set<string>();
    const dirs: { name: string; size: number; etag: string; modified: string; dir: boolean }[] = [];
    do {
      const page = await p.client.listObjects(p.bucket, prefix, recursive ? "" : "/", marker);
      for (const o of page.objects) {
        const name = o.key.slice(prefix.length);
        out.push({ name, size: o.size, etag: o.etag, modified: o.lastModified, dir: false });
        if (recursive) {
          const parts = name.split("/").slice(0, -1);
          for (let i = 1; i <= parts.length; i++) {
            const d = parts.slice(0, i).join("/");
            if (!seenDirs.has(d)) {
              seenDirs.add(d);
              dirs.push({ name: d, size: -1, etag: "", modified: "", dir: true });
            }
          }
        }
      }
      for (const pre of page.prefixes)
        out.push({ name: pre.slice(prefix.length).replace(/\/$/, ""), size: -1, etag: "", modified: "", dir: true });
      marker = page.nextMarker;
    } while (marker !== undefined);
    // A recursive listing prints the objects in key order, then the directories they implied.
    out.push(...dirs);
    if (!recursive) out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }

  private listLocalEntries(
    abs: string,
    recursive: boolean,
  ): { name: string; size: number; etag: string; modified: string; dir: boolean }[] {
    try {
      if (!statSync(abs).isDirectory()) throw dirNotFound();
    } catch {
      throw dirNotFound();
    }
    const out: { name: string; size: number; etag: string; modified: string; dir: boolean }[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = join(d, e.name);
        const st = statSync(p);
        out.push({
          name: relative(abs, p),
          size: e.isDirectory() ? -1 : st.size,
          etag: "",
          modified: st.mtime.toISOString(),
          dir: e.isDirectory(),
        });
        if (recursive && e.isDirectory()) walk(p);
      }
    };
    walk(abs);
    return out;
  }

  private entries(p: Place, recursive: boolean) {
    return p.kind === "local" ? Promise.resolve(this.listLocalEntries(p.abs, recursive)) : this.listAll(p, recursive);
  }

  /** lsf prints names (and with -F, size and time) one per line. */
  async lsf(arg: string): Promise<number> {
    const p = this.place(arg, "");
    let list: Awaited<ReturnType<Rclone["entries"]>>;
    try {
      list = await this.entries(p, this.flags.recursive);
    } catch (e) {
      const err = asOpError(e);
      this.log.log("error", "", `error listing: ${err.message}`);
      this.log.fatal(`Failed to lsf with 2 errors: last error was: error in ListJSON: ${err.message}`);
      return err.exitCode;
    }
    for (const o of list) {
      if ((this.flags.filesOnly && o.dir) || (this.flags.dirsOnly && !o.dir)) continue;
      const fields = [...this.flags.format].map((c) => {
        if (c === "p") return `${this.flags.absolute ? "/" : ""}${o.name}${o.dir && this.flags.dirSlash ? "/" : ""}`;
        if (c === "s") return String(o.size);
        if (c === "t") return o.modified.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
        if (c === "h") return o.etag;
        return "";
      });
      this.io.stdout(`${fields.join(this.flags.separator)}\n`);
    }
    return 0;
  }

  /** ls prints every object under the path with its size, recursively. */
  async ls(arg: string): Promise<number> {
    const p = this.place(arg, "");
    let list: Awaited<ReturnType<Rclone["entries"]>>;
    try {
      list = await this.entries(p, true);
    } catch (e) {
      const err = asOpError(e);
      this.log.fatal(`Failed to ls: ${err.message}`);
      return err.exitCode;
    }
    for (const o of list) if (!o.dir) this.io.stdout(`${String(o.size).padStart(9)} ${o.name}\n`);
    return 0;
  }
}

function md5Hex(data: Uint8Array): string {
  return createHash("md5").update(data).digest("hex");
}

/** contentType is the MIME type rclone's local backend guesses from the extension. */
function contentType(name: string): string {
  const ext = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  const known: Record<string, string> = {
    txt: "text/plain; charset=utf-8",
    yaml: "application/yaml",
    yml: "application/yaml",
    json: "application/json",
    gz: "application/gzip",
    tar: "application/x-tar",
  };
  return name.includes(".") ? (known[ext] ?? "application/octet-stream") : "application/octet-stream";
}

/** sizeSuffix is rclone's SizeSuffix.ByteUnit(): 6 B, 1.500 KiB trimmed to 1.5 KiB. */
export function sizeSuffix(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(3).replace(/\.?0+$/, "")} ${units[u]}`;
}

/** runRclone runs `rclone` with `args` and returns its exit status. */
export async function runRclone(io: CliIo, args: readonly string[]): Promise<number> {
  let parsed: { flags: Flags; positional: string[] };
  const commandName = args.find((a) => !a.startsWith("-"));
  const known = commandName !== undefined && commandName in commands;
  const tmpLog = new RcloneLog(io, Level.notice);
  try {
    parsed = parseArgs(args, (k) => io.getenv(k));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`Error: ${e.message}\n${known ? usageOf(commandName) : rootUsage()}\n`);
    tmpLog.fatal(`Fatal error: ${e.message}`);
    return 1;
  }
  const { flags, positional } = parsed;
  const [name, ...rest] = positional;
  if (name === undefined) {
    io.stderr(rootUsage());
    return flags.help ? 0 : 1;
  }
  const spec = commands[name];
  if (!spec) {
    io.stderr(
      `Error: unknown command ${goQuote(name)} for "rclone"\nRun 'rclone --help' for usage.\nYou could use 'rclone selfupdate' to get latest features.\n\n`,
    );
    tmpLog.fatal(`Fatal error: unknown command ${goQuote(name)} for "rclone"`);
    return 1;
  }
  if (flags.help) {
    io.stdout(usageOf(name));
    return 0;
  }
  if (rest.length < spec.min || rest.length > spec.max) {
    const bound = rest.length < spec.min ? `${spec.min} arguments minimum` : `${spec.max} arguments maximum`;
    io.stderr(
      `${usageOf(name)}Command ${name} needs ${bound}: you provided ${rest.length} non flag arguments: [${rest.map((a) => goQuote(a)).join(" ")}]\n`,
    );
    return 1;
  }
  if (name === "version") {
    io.stdout(
      "rclone v1.60.1-DEV\n- os/version: etcd-lab (simulated)\n- os/type: linux\n- go/version: go1.19.8\n- go/tags: none\n",
    );
    return 0;
  }
  const level = flags.quiet
    ? Level.error
    : flags.verbose >= 2
      ? Level.debug
      : flags.verbose === 1
        ? Level.info
        : Level.notice;
  const r = new Rclone(io, flags, new RcloneLog(io, level));
  r.loadConfig();
  try {
    switch (name) {
      case "copyto":
        return await r.copyto(rest[0] as string, rest[1] as string);
      case "copy":
        return await r.copy(rest[0] as string, rest[1] as string);
      case "rcat":
        return await r.rcat(rest[0] as string);
      case "lsf":
        return await r.lsf(rest[0] as string);
      default:
        return await r.ls(rest[0] as string);
    }
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    r.log.fatal(e.message);
    return 1;
  }
}
