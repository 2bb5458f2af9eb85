// `kubectl wait --for=condition=C[=V] | --for=delete | --for=jsonpath='{...}'[=V] TYPE/NAME --timeout=D`:
// reads the object until the condition holds (`pod/x condition met`) or the timeout passes (`error: timed
// out waiting for the condition on pods/x`), as kubectl's wait does.

import { Command } from "../../cobra/command.ts";
import { ApiError } from "../../../kube/api/client.ts";
import type { JsonValue, KubeObject } from "../../../kube/api/object.ts";
import { durationNs } from "../../../go/go-duration.ts";
import type { Kube } from "../ctx.ts";
import { qualifiedKind, qualifiedResource, resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { JsonPath, JsonPathError } from "../printers/jsonpath.ts";
import { parseResourceArgs } from "../resources.ts";
import { MultiError } from "./common.ts";

type Cond =
  | { t: "delete" }
  | { t: "condition"; name: string; value: string }
  | { t: "jsonpath"; path: JsonPath; value: string | undefined };

function parseFor(s: string): Cond {
  const lower = s.toLowerCase();
  if (lower === "delete") return { t: "delete" };
  if (lower.startsWith("condition=")) {
    const rest = s.slice("condition=".length);
    const eq = rest.indexOf("=");
    return eq >= 0 ? { t: "condition", name: rest.slice(0, eq), value: rest.slice(eq + 1) } : { t: "condition", name: rest, value: "true" };
  }
  if (lower.startsWith("jsonpath=")) {
    const rest = s.slice("jsonpath=".length);
    const close = rest.lastIndexOf("}");
    const expr = close >= 0 ? rest.slice(0, close + 1) : rest;
    const after = close >= 0 ? rest.slice(close + 1) : "";
    if (after !== "" && !after.startsWith("=")) throw new KubectlError(`unrecognized condition: "${s}"`);
    try {
      return { t: "jsonpath", path: new JsonPath(expr.startsWith("{") ? expr : `{${expr}}`), value: after === "" ? undefined : after.slice(1) };
    } catch (e) {
      if (e instanceof JsonPathError) throw new KubectlError(`unrecognized condition: "${s}"`);
      throw e;
    }
  }
  throw new KubectlError(`unrecognized condition: "${s}"`);
}

function holds(c: Cond, obj: KubeObject): boolean {
  if (c.t === "condition") {
    const conds = ((obj["status"] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []);
    return conds.some(
      (x) => (x.type ?? "").toLowerCase() === c.name.toLowerCase() && (x.status ?? "").toLowerCase() === c.value.toLowerCase(),
    );
  }
  if (c.t === "jsonpath") {
    let vals: JsonValue[];
    try {
      vals = c.path.findValues(obj as unknown as JsonValue);
    } catch {
      return false;
    }
    if (c.value === undefined) return vals.length > 0;
    return vals.length === 1 && typeof vals[0] !== "object" && String(vals[0]) === c.value;
  }
  return false;
}

/** newWaitCommand builds `kubectl wait`. */
export function newWaitCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
    short: "Experimental: Wait for a specific condition on one or many resources",
    run: async (_c, args) => {
      const cond = parseFor(forFlag());
      if (args.length === 0) throw new KubectlError("resource(s) were provided, but no name was specified");
      const timeoutMs = timeout() / durationNs.millisecond;
      const deadline = Date.now() + timeoutMs;
      const errors: unknown[] = [];
      for (const rq of await parseResourceArgs(kube, args)) {
        for (const name of rq.names) {
          const path = resourcePath(rq.resource, kube.namespace(), name);
          const label = `${qualifiedKind(rq.resource)}/${name}`;
          try {
            for (let first = true; ; first = false) {
              let obj: KubeObject | undefined;
              try {
                obj = await kube.client().json<KubeObject>(path);
              } catch (e) {
                if (!(e instanceof ApiError && e.code === 404)) throw e;
                if (cond.t !== "delete") throw e;
                // An object already gone is not visited at all: nothing to print.
                if (first) break;
              }
              if (cond.t === "delete" ? obj === undefined : holds(cond, obj as KubeObject)) {
                kube.io.stdout(`${label} condition met\n`);
                break;
              }
              if (Date.now() >= deadline) {
                throw new KubectlError(`timed out waiting for the condition on ${qualifiedResource(rq.resource)}/${name}`);
              }
              await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, deadline - Date.now()))));
            }
          } catch (e) {
            errors.push(e);
          }
        }
      }
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new MultiError(errors);
    },
  });
  const f = cmd.flags();
  const forFlag = f.string("for", "", "", "The condition to wait on: [delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]].");
  const timeout = f.duration("timeout", "", 30 * durationNs.second, "The length of time to wait before giving up.");
  return cmd;
}
