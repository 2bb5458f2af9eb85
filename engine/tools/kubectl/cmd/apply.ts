// `kubectl apply -f` (client-side apply) and `kubectl replace -f`. Apply keeps the object's last applied
// configuration in the kubectl.kubernetes.io/last-applied-configuration annotation (compact JSON, sorted keys,
// trailing newline, `"annotations":{}` when there were none, as kubectl writes it); creates what is absent and
// otherwise sends the three-way merge of (last applied, file, live) as a merge patch: `configured`, or
// `unchanged` when that patch is empty. Replace PUTs the file's object, so a stale resourceVersion in the file
// is the server's 409 Conflict.

import { Command } from "../../cobra/command.ts";
import type { Status } from "../../../kube/api/client.ts";
import { ApiError } from "../../../kube/api/client.ts";
import type { JsonValue, KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import type { ApiResource } from "../discovery.ts";
import { resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { marshalJson } from "../printers/json.ts";
import { createFormats, nameOf, parseOutput, printGeneric } from "../printers/printer.ts";
import { MultiError, readFilenames } from "./common.ts";
import { dryRunSuffix, parseDryRun } from "./create.ts";

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration";

/** addSourceToErr is cmdutil.AddSourceToErr: `error when creating "f.yaml": ...`. */
export function addSourceToErr(verb: string, source: string, err: unknown): unknown {
  if (source === "") return err;
  if (err instanceof ApiError) {
    const s: Status = { ...err.status, message: `error when ${verb} "${source}": ${err.status.message}` };
    return new ApiError(s);
  }
  if (err instanceof Error) return new KubectlError(`error when ${verb} "${source}": ${err.message}`);
  return err;
}

/** mapObject finds the served resource of an object's apiVersion and kind. */
export async function mapObject(kube: Kube, obj: KubeObject, source: string): Promise<ApiResource> {
  const all = await kube.discovery().all();
  const slash = obj.apiVersion.indexOf("/");
  const group = slash >= 0 ? obj.apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? obj.apiVersion.slice(slash + 1) : obj.apiVersion;
  const r = all.find((x) => x.group === group && x.version === version && x.kind === obj.kind);
  if (!r) {
    throw new KubectlError(
      `resource mapping not found for name: "${obj.metadata?.name ?? ""}" namespace: "${obj.metadata?.namespace ?? ""}" from "${source}": no matches for kind "${obj.kind}" in version "${obj.apiVersion}"\nensure CRDs are installed first`,
    );
  }
  return r;
}

/** objectNamespace is the namespace an -f object goes to (and sets it on namespaced objects). */
export function objectNamespace(kube: Kube, r: ApiResource, obj: KubeObject): string | undefined {
  if (!r.namespaced) return undefined;
  obj.metadata ??= {};
  const ns = obj.metadata.namespace;
  if (ns !== undefined && ns !== "" && kube.config().explicitNamespace && ns !== kube.namespace()) {
    throw new KubectlError(
      `the namespace from the provided object "${ns}" does not match the namespace "${kube.namespace()}". You must pass '--namespace=${ns}' to perform this operation.`,
    );
  }
  if (ns === undefined || ns === "") obj.metadata.namespace = kube.namespace();
  return obj.metadata.namespace;
}

/** modifiedConfiguration is kubectl's GetModifiedConfiguration with annotate=true. */
function modifiedConfiguration(obj: KubeObject): { modified: KubeObject; annotation: string } {
  const copy = JSON.parse(JSON.stringify(obj)) as KubeObject;
  const annots = { ...(copy.metadata.annotations ?? {}) };
  delete annots[lastApplied];
  copy.metadata.annotations = annots;
  const annotation = `${marshalJson(copy as unknown as JsonValue)}\n`;
  copy.metadata.annotations = { ...annots, [lastApplied]: annotation };
  return { modified: copy, annotation };
}

type Obj = { [k: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** deletions are the keys present in original and absent in modified (recursively through maps), as null. */
function deletions(original: Obj, modified: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(original)) {
    if (!(k in modified)) out[k] = null;
    else if (isObj(original[k]) && isObj(modified[k])) {
      const sub = deletions(original[k] as Obj, modified[k] as Obj);
      if (Object.keys(sub).length > 0) out[k] = sub;
    }
  }
  return out;
}

/** subsetEqual says whether every field of m is in c with the same value (server defaults aside). */
function subsetEqual(m: JsonValue | undefined, c: JsonValue | undefined): boolean {
  if (Array.isArray(m)) {
    return Array.isArray(c) && m.length === c.length && m.every((x, i) => subsetEqual(x, c[i]));
  }
  if (isObj(m)) return isObj(c) && Object.keys(m).every((k) => subsetEqual(m[k], c[k]));
  return m === c;
}

/**
 * changes are modified's values that differ from current, recursively through maps. A list is sent whole
 * when an element differs from the live one (fields the server defaulted aside) or from the last applied.
 */
function changes(current: Obj, modified: Obj, original: Obj | undefined): Obj {
  const out: Obj = {};
  for (const k of Object.keys(modified)) {
    const m = modified[k] as JsonValue;
    const c = current[k];
    const o = original?.[k];
    if (isObj(m) && isObj(c)) {
      const sub = changes(c, m, isObj(o) ? o : undefined);
      if (Object.keys(sub).length > 0) out[k] = sub;
    } else if (Array.isArray(m)) {
      if (!subsetEqual(m, c) || (o !== undefined && marshalJson(o) !== marshalJson(m))) out[k] = m;
    } else if (c === undefined || marshalJson(c) !== marshalJson(m)) out[k] = m;
  }
  return out;
}

function mergeInto(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const k of Object.keys(b)) {
    out[k] = isObj(out[k]) && isObj(b[k]) ? mergeInto(out[k] as Obj, b[k] as Obj) : (b[k] as JsonValue);
  }
  return out;
}

/** threeWayMergePatch is jsonmergepatch.CreateThreeWayJSONMergePatch. */
export function threeWayMergePatch(original: Obj, modified: Obj, current: Obj): Obj {
  return mergeInto(deletions(original, modified), changes(current, modified, original));
}

/** newApplyCommand builds `kubectl apply`. */
export function newApplyCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "apply (-f FILENAME | -k DIRECTORY)",
    short: "Apply a configuration to a resource by file name or stdin",
    run: async () => {
      if (filenames().length === 0) throw new KubectlError("must specify one of -f and -k");
      const dry = parseDryRun(dryRun());
      const out = parseOutput(output(), createFormats);
      const errors: unknown[] = [];
      for (const { obj, source } of readFilenames(kube, filenames())) {
        try {
          const r = await mapObject(kube, obj, source);
          const ns = objectNamespace(kube, r, obj);
          const name = obj.metadata?.name ?? "";
          if (name === "") throw new KubectlError(`error when retrieving current configuration of:\nResource: "${r.group === "" ? "" : r.group}/${r.version}, Resource=${r.name}", GroupVersionKind: "${r.group}/${r.version}, Kind=${r.kind}"\nName: "", Namespace: "${ns ?? ""}"\nfrom server for: "${source}": resource name may not be empty`);
          const { modified, annotation } = modifiedConfiguration(obj);
          const path = resourcePath(r, ns, name);
          let current: KubeObject | undefined;
          try {
            current = await kube.client().json<KubeObject>(path);
          } catch (e) {
            if (!(e instanceof ApiError && e.code === 404)) throw addSourceToErr("retrieving current configuration of", source, e);
          }
          const print = (o: KubeObject, op: string) =>
            kube.io.stdout(output() === "" ? `${nameOf(o)} ${op}${dryRunSuffix(dry)}\n` : printGeneric(o, out));
          if (!current) {
            if (dry === "client") {
              print(modified, "created");
              continue;
            }
            const created = await kube
              .client()
              .json<KubeObject>(resourcePath(r, ns), {
                method: "POST",
                body: JSON.stringify(modified),
                contentType: "application/json",
                query: dry === "server" ? { dryRun: "All" } : {},
              })
              .catch((e: unknown) => {
                throw addSourceToErr("creating", source, e);
              });
            print(created, "created");
            continue;
          }
          const prev = current.metadata.annotations?.[lastApplied];
          if (prev === undefined) {
            kube.io.stderr(
              `Warning: resource ${r.group === "" ? r.name : `${r.name}.${r.group}`}/${name} is missing the ${lastApplied} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n`,
            );
          }
          const original = prev === undefined ? {} : (JSON.parse(prev) as Obj);
          void annotation;
          const patch = threeWayMergePatch(original, modified as unknown as Obj, current as unknown as Obj);
          if (Object.keys(patch).length === 0) {
            print(current, "unchanged");
            continue;
          }
          if (dry === "client") {
            print(current, "configured");
            continue;
          }
          const body = marshalJson(patch);
          const patched = await kube
            .client()
            .json<KubeObject>(path, {
              method: "PATCH",
              body,
              contentType: "application/merge-patch+json",
              query: dry === "server" ? { dryRun: "All" } : {},
            })
            .catch((e: unknown) => {
              throw addSourceToErr(
                `applying patch:\n${body}\nto:\nResource: "${r.group}/${r.version}, Resource=${r.name}", GroupVersionKind: "${r.group}/${r.version}, Kind=${r.kind}"\nName: "${name}", Namespace: "${ns ?? ""}"\nfor:`,
                source,
                e,
              );
            });
          print(patched, "configured");
        } catch (e) {
          errors.push(e);
        }
      }
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new MultiError(errors);
    },
  });
  const f = cmd.flags();
  const filenames = f.stringSlice("filename", "f", [], "The files that contain the configurations to apply.");
  const output = f.string("output", "o", "", "Output format.");
  const dryRun = f.string("dry-run", "", "none", 'Must be "none", "server", or "client".');
  return cmd;
}

/** newReplaceCommand builds `kubectl replace -f`. */
export function newReplaceCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "replace -f FILENAME",
    short: "Replace a resource by file name or stdin",
    run: async () => {
      if (filenames().length === 0) throw new KubectlError("must specify --filename to replace");
      const out = parseOutput(output(), createFormats);
      const errors: unknown[] = [];
      for (const { obj, source } of readFilenames(kube, filenames())) {
        try {
          const r = await mapObject(kube, obj, source);
          const ns = objectNamespace(kube, r, obj);
          const replaced = await kube
            .client()
            .json<KubeObject>(resourcePath(r, ns, obj.metadata?.name ?? ""), {
              method: "PUT",
              body: JSON.stringify(obj),
              contentType: "application/json",
            })
            .catch((e: unknown) => {
              throw addSourceToErr("replacing", source, e);
            });
          kube.io.stdout(output() === "" ? `${nameOf(replaced)} replaced\n` : printGeneric(replaced, out));
        } catch (e) {
          errors.push(e);
        }
      }
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new MultiError(errors);
    },
  });
  const f = cmd.flags();
  const filenames = f.stringSlice("filename", "f", [], "The files that contain the configurations to replace.");
  const output = f.string("output", "o", "", "Output format.");
  return cmd;
}
