// `kubectl create`: `-f FILE` (POST each object), and the generators `create configmap`, `create secret
// generic` (--from-literal, --from-file, --type) and `create job NAME --from=cronjob/NAME`. The generators
// build typed objects, so their JSON keeps Go's field order (kind, apiVersion, metadata, data). --dry-run
// client|server|none and -o as kubectl's; messages `configmap/x created`, `... created (dry run)`.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { Command } from "../../cobra/command.ts";
import type { KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import { resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { createFormats, nameOf, parseOutput, printGeneric } from "../printers/printer.ts";
import { addSourceToErr, mapObject, objectNamespace } from "./apply.ts";
import { MultiError, readFilenames, seeHelp } from "./common.ts";

/** DryRun is --dry-run's value. */
export type DryRun = "none" | "client" | "server";

/** parseDryRun reads --dry-run (the flag's bare form means "unchanged", an old alias of client). */
export function parseDryRun(v: string): DryRun {
  if (v === "" || v === "none" || v === "false") return "none";
  if (v === "client" || v === "true" || v === "unchanged") return "client";
  if (v === "server") return "server";
  throw new KubectlError(`Invalid dry-run value (${v}). Must be "none", "server", or "client".`);
}

/** dryRunSuffix is what kubectl appends to operation messages. */
export function dryRunSuffix(d: DryRun): string {
  return d === "client" ? " (dry run)" : d === "server" ? " (server dry run)" : "";
}

/** addOutputFlags defines -o and --dry-run the way kubectl's create commands do. */
function outputFlags(cmd: Command): { output: () => string; dryRun: () => string } {
  const f = cmd.flags();
  const output = f.string("output", "o", "", "Output format.");
  const dryRun = f.string("dry-run", "", "none", 'Must be "none", "server", or "client".');
  const flag = f.lookup("dry-run");
  if (flag) Object.assign(flag, { noOptDefVal: "unchanged" });
  return { output, dryRun };
}

const keyRe = /^[-._a-zA-Z0-9]+$/;

function validKey(key: string, kind: string): void {
  if (!keyRe.test(key) || key === "." || key === ".." || key.startsWith("..")) {
    throw new KubectlError(
      `"${key}" is not a valid key name for a ${kind}: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  }
}

interface Sources {
  literals: string[];
  files: string[];
}

/** collect reads --from-literal and --from-file into key → bytes, in kubectl's order (files, then literals). */
function collect(src: Sources, kind: string, name: string, field: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const add = (k: string, v: Buffer) => {
    validKey(k, kind);
    if (out.has(k)) {
      throw new KubectlError(`cannot add key "${k}", another key by that name already exists in ${field} for ${kind} "${name}"`);
    }
    out.set(k, v);
  };
  for (const f of src.files) {
    const eq = f.indexOf("=");
    const key = eq >= 0 ? f.slice(0, eq) : undefined;
    const path = eq >= 0 ? f.slice(eq + 1) : f;
    if (key === "") throw new KubectlError(`key names or file paths cannot be empty`);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new KubectlError(`error reading ${path}: no such file or directory`);
    }
    if (st.isDirectory()) {
      if (key !== undefined) throw new KubectlError(`cannot give a key name for a directory path.`);
      for (const e of readdirSync(path).sort()) {
        const p = join(path, e);
        if (statSync(p).isFile()) add(e, readFileSync(p));
      }
    } else add(key ?? basename(path), readFileSync(path));
  }
  for (const l of src.literals) {
    const eq = l.indexOf("=");
    if (eq <= 0) throw new KubectlError(`invalid literal source ${l}, expected key=value`);
    add(l.slice(0, eq), Buffer.from(l.slice(eq + 1)));
  }
  return out;
}

function isUtf8(b: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** typedMeta is the ObjectMeta kubectl's generators fill, in Go's field order. */
function typedMeta(kube: Kube, name: string): Record<string, unknown> {
  const m: Record<string, unknown> = { name };
  if (kube.config().explicitNamespace) m["namespace"] = kube.namespace();
  m["creationTimestamp"] = null;
  return m;
}

/** finish sends or prints a generated object. */
async function finish(
  kube: Kube,
  obj: KubeObject,
  plural: string,
  group: string,
  o: { output: () => string; dryRun: () => string },
): Promise<void> {
  const out = parseOutput(o.output(), createFormats);
  const dry = parseDryRun(o.dryRun());
  if (dry === "client") {
    kube.io.stdout(o.output() === "" ? `${nameOf(obj)} created (dry run)\n` : printGeneric(obj, out, true));
    return;
  }
  const [r] = await kube.discovery().find(group === "" ? plural : `${plural}.${group}`);
  if (!r) throw new KubectlError(`the server doesn't have a resource type "${plural}"`);
  const created = await kube.client().json<KubeObject>(resourcePath(r, kube.namespace()), {
    method: "POST",
    body: JSON.stringify(obj),
    contentType: "application/json",
    query: dry === "server" ? { dryRun: "All" } : {},
  });
  kube.io.stdout(
    o.output() === "" ? `${nameOf(created)} created${dryRunSuffix(dry)}\n` : printGeneric(created, out),
  );
}

function newConfigMap(kube: Kube): Command {
  const cmd = new Command({
    use: "configmap NAME [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
    short: "Create a config map from a local file, directory or literal value",
    run: async (_c, args) => {
      if (args.length !== 1) {
        throw new KubectlError(`exactly one NAME is required, got ${args.length}\n${seeHelp("kubectl create configmap")}`);
      }
      const name = args[0] as string;
      const data = collect({ literals: literals(), files: files() }, "ConfigMap", name, "Data");
      const text: Record<string, string> = {};
      const bin: Record<string, string> = {};
      for (const [k, v] of data) {
        if (isUtf8(v)) text[k] = v.toString("utf8");
        else bin[k] = v.toString("base64");
      }
      const obj: Record<string, unknown> = { kind: "ConfigMap", apiVersion: "v1", metadata: typedMeta(kube, name) };
      if (Object.keys(text).length > 0) obj["data"] = text;
      if (Object.keys(bin).length > 0) obj["binaryData"] = bin;
      await finish(kube, obj as unknown as KubeObject, "configmaps", "", o);
    },
  });
  const f = cmd.flags();
  const literals = f.stringSlice("from-literal", "", [], "Specify a key and literal value to insert in configmap (i.e. mykey=somevalue)");
  const files = f.stringSlice("from-file", "", [], "Key file can be specified using its file path.");
  const o = outputFlags(cmd);
  return cmd;
}

function newSecretGeneric(kube: Kube): Command {
  const cmd = new Command({
    use: "generic NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
    short: "Create a secret from a local file, directory, or literal value",
    run: async (_c, args) => {
      if (args.length !== 1) {
        throw new KubectlError(
          `exactly one NAME is required, got ${args.length}\n${seeHelp("kubectl create secret generic")}`,
        );
      }
      const name = args[0] as string;
      const data = collect({ literals: literals(), files: files() }, "Secret", name, "Data");
      const obj: Record<string, unknown> = { kind: "Secret", apiVersion: "v1", metadata: typedMeta(kube, name) };
      if (data.size > 0) obj["data"] = Object.fromEntries([...data].map(([k, v]) => [k, v.toString("base64")]));
      if (type() !== "") obj["type"] = type();
      await finish(kube, obj as unknown as KubeObject, "secrets", "", o);
    },
  });
  const f = cmd.flags();
  const literals = f.stringSlice("from-literal", "", [], "Specify a key and literal value to insert in secret (i.e. mykey=somevalue)");
  const files = f.stringSlice("from-file", "", [], "Key files can be specified using their file path.");
  const type = f.string("type", "", "", "The type of secret to create");
  const o = outputFlags(cmd);
  return cmd;
}

function newJob(kube: Kube): Command {
  const cmd = new Command({
    use: "job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...]",
    short: "Create a job with the specified name",
    run: async (_c, args) => {
      if (args.length === 0) {
        throw new KubectlError(`exactly one NAME is required, got 0\n${seeHelp("kubectl create job")}`);
      }
      const name = args[0] as string;
      if (from() === "") throw new KubectlError("either --image or --from must be specified");
      const [kind, cjName] = from().split("/") as [string, string | undefined];
      if (cjName === undefined || !["cronjob", "cronjobs", "cj", "cronjob.batch", "cronjobs.batch"].includes(kind)) {
        throw new KubectlError(`from must be an existing cronjob: ${from()}`);
      }
      const [r] = await kube.discovery().find("cronjobs.batch");
      if (!r) throw new KubectlError(`the server doesn't have a resource type "cronjobs"`);
      const cj = await kube.client().json<KubeObject>(resourcePath(r, kube.namespace(), cjName));
      const tmpl = ((cj["spec"] as Record<string, unknown> | undefined)?.["jobTemplate"] ?? {}) as {
        metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
        spec?: unknown;
      };
      const meta: Record<string, unknown> = { name };
      if (kube.config().explicitNamespace) meta["namespace"] = kube.namespace();
      meta["creationTimestamp"] = null;
      if (tmpl.metadata?.labels) meta["labels"] = tmpl.metadata.labels;
      meta["annotations"] = { "cronjob.kubernetes.io/instantiate": "manual", ...(tmpl.metadata?.annotations ?? {}) };
      meta["ownerReferences"] = [
        { apiVersion: "batch/v1", kind: "CronJob", name: cj.metadata.name, uid: cj.metadata.uid, controller: true },
      ];
      const job = { kind: "Job", apiVersion: "batch/v1", metadata: meta, spec: tmpl.spec ?? {}, status: {} };
      await finish(kube, job as unknown as KubeObject, "jobs", "batch", o);
    },
  });
  const f = cmd.flags();
  const from = f.string("from", "", "", "The name of the resource to create a Job from (only cronjob is supported).");
  f.string("image", "", "", "Image name to run.");
  const o = outputFlags(cmd);
  return cmd;
}

/** newCreateCommand builds `kubectl create` and its generators. */
export function newCreateCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "create -f FILENAME",
    short: "Create a resource from a file or from stdin",
    run: async () => {
      if (filenames().length === 0) throw new KubectlError("must specify one of -f and -k");
      const dry = parseDryRun(o.dryRun());
      const out = parseOutput(o.output(), createFormats);
      const errors: unknown[] = [];
      for (const { obj, source } of readFilenames(kube, filenames())) {
        try {
          const r = await mapObject(kube, obj, source);
          const ns = objectNamespace(kube, r, obj);
          if (dry === "client") {
            kube.io.stdout(o.output() === "" ? `${nameOf(obj)} created (dry run)\n` : printGeneric(obj, out));
            continue;
          }
          const created = await kube
            .client()
            .json<KubeObject>(resourcePath(r, ns), {
              method: "POST",
              body: JSON.stringify(obj),
              contentType: "application/json",
              query: dry === "server" ? { dryRun: "All" } : {},
            })
            .catch((e: unknown) => {
              throw addSourceToErr("creating", source, e);
            });
          kube.io.stdout(
            o.output() === "" ? `${nameOf(created)} created${dryRunSuffix(dry)}\n` : printGeneric(created, out),
          );
        } catch (e) {
          errors.push(e);
        }
      }
      if (errors.length > 0) {
        throw errors.length === 1 ? errors[0] : new MultiError(errors);
      }
    },
  });
  const filenames = cmd.flags().stringSlice("filename", "f", [], "Filename, directory, or URL to files to use to create the resource");
  const o = outputFlags(cmd);
  const secret = new Command({ use: "secret (docker-registry | generic | tls)", short: "Create a secret using a specified subcommand" });
  secret.addCommand(newSecretGeneric(kube));
  cmd.addCommand(newConfigMap(kube), secret, newJob(kube));
  return cmd;
}
