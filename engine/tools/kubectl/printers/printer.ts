// kubectl's -o choices (cli-runtime's PrintFlags): parsing `-o yaml|json|name|jsonpath=…|jsonpath-as-json=…|
// custom-columns=…|wide`, the "unable to match a printer" error with each command's allowed list, and the
// generic printers (YAML, JSON with four-space indent, name, JSONPath, custom columns).

import type { JsonValue, KubeObject } from "../../../kube/api/object.ts";
import { KubectlError } from "../errors.ts";
import { marshalJson } from "./json.ts";
import { goSharpV, goV, JsonPath, JsonPathError } from "./jsonpath.ts";
import { TableWriter } from "./table.ts";
import { marshalYaml } from "./yaml.ts";

/** Output is a parsed -o value. */
export type Output =
  | { kind: "table" | "wide" | "yaml" | "json" | "name" }
  | { kind: "jsonpath"; template: string; asJson: boolean; path: JsonPath }
  | { kind: "custom-columns"; headers: string[]; paths: JsonPath[] };

/** getFormats are `kubectl get`'s allowed formats; createFormats those of create/apply/scale/patch. */
export const getFormats =
  "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml";
export const createFormats =
  "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml";

/** relaxedJsonPath is kubectl's RelaxedJSONPathExpression (`.a.b` and `a.b` become `{.a.b}`). */
export function relaxedJsonPath(p: string): string {
  if (p.length === 0) return p;
  const m = /^\{?(\.?[^{}]*)\}?$/.exec(p);
  if (!m) {
    throw new KubectlError(
      `unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'`,
    );
  }
  const body = m[1] as string;
  return `{${body.startsWith(".") ? body : `.${body}`}}`;
}

/** parseOutput validates -o against a command's allowed formats. */
export function parseOutput(o: string, allowed: string): Output {
  const list = allowed.split(",");
  if (o === "") return { kind: "table" };
  const eq = o.indexOf("=");
  const name = eq >= 0 ? o.slice(0, eq) : o;
  const arg = eq >= 0 ? o.slice(eq + 1) : "";
  const bad = () =>
    new KubectlError(
      `unable to match a printer suitable for the output format "${o}", allowed formats are: ${allowed}`,
    );
  if (!list.includes(name)) throw bad();
  if (name === "yaml" || name === "json" || name === "name" || name === "wide") {
    if (eq >= 0) throw bad();
    return { kind: name };
  }
  if (name === "jsonpath" || name === "jsonpath-as-json") {
    if (arg === "") throw new KubectlError("template format specified but no template given");
    let path: JsonPath;
    try {
      path = new JsonPath(arg, name === "jsonpath-as-json");
    } catch (e) {
      if (e instanceof JsonPathError) throw new KubectlError(`error parsing jsonpath ${arg}, ${e.message}`);
      throw e;
    }
    return { kind: "jsonpath", template: arg, asJson: name === "jsonpath-as-json", path };
  }
  if (name === "custom-columns") {
    if (arg === "") throw new KubectlError("custom-columns format specified but no custom columns given");
    const headers: string[] = [];
    const paths: JsonPath[] = [];
    for (const part of arg.split(",")) {
      const colon = part.indexOf(":");
      if (colon < 0) {
        throw new KubectlError(`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`);
      }
      headers.push(part.slice(0, colon));
      const expr = relaxedJsonPath(part.slice(colon + 1));
      try {
        paths.push(new JsonPath(expr));
      } catch (e) {
        if (e instanceof JsonPathError) throw new KubectlError(`error parsing jsonpath ${expr}, ${e.message}`);
        throw e;
      }
    }
    return { kind: "custom-columns", headers, paths };
  }
  throw new KubectlError(`output format "${name}" is not supported by this kubectl (etcd-lab)`);
}

/** nameOf is the name printer's `kind.group/name`. */
export function nameOf(obj: KubeObject): string {
  const slash = obj.apiVersion.indexOf("/");
  const group = slash >= 0 ? obj.apiVersion.slice(0, slash) : "";
  const kind = obj.kind.toLowerCase();
  return `${group === "" ? kind : `${kind}.${group}`}/${obj.metadata?.name ?? ""}`;
}

/**
 * printGeneric prints an object (or a List) with a non-table printer. `typed` keeps the object's field
 * order in JSON (objects kubectl built itself); server objects print with sorted keys.
 */
export function printGeneric(obj: KubeObject, out: Output, typed = false, operation = "", noHeaders = false): string {
  switch (out.kind) {
    case "yaml":
      return marshalYaml(obj as unknown as JsonValue);
    case "json":
      return `${marshalJson(obj as unknown as JsonValue, "    ", !typed)}\n`;
    case "name": {
      const items = obj.kind === "List" ? ((obj["items"] as unknown as KubeObject[]) ?? []) : [obj];
      return items.map((i) => `${nameOf(i)}${operation === "" ? "" : ` ${operation}`}\n`).join("");
    }
    case "jsonpath": {
      const data = typed ? (JSON.parse(JSON.stringify(obj)) as JsonValue) : (obj as unknown as JsonValue);
      try {
        return out.path.execute(data);
      } catch (e) {
        if (!(e instanceof JsonPathError)) throw e;
        const buf =
          `Error executing template: ${e.message}. Printing more information for debugging the template:\n` +
          `\ttemplate was:\n\t\t${out.template}\n` +
          `\tobject given to jsonpath engine was:\n\t\t${goSharpV(data)}\n\n`;
        throw new KubectlError(`error executing jsonpath ${JSON.stringify(out.template)}: ${buf}\n`);
      }
    }
    case "custom-columns": {
      const items = obj.kind === "List" ? ((obj["items"] as unknown as KubeObject[]) ?? []) : [obj];
      const tw = new TableWriter();
      if (!noHeaders) tw.row(out.headers);
      for (const it of items) {
        tw.row(
          out.paths.map((p) => {
            const values = p.findValues(it as unknown as JsonValue);
            return values.length === 0 ? "<none>" : values.map(goV).join(",");
          }),
        );
      }
      return tw.flush();
    }
    default:
      throw new Error(`printGeneric: ${out.kind} is a table format`);
  }
}
