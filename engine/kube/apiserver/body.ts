// Reading request bodies the way the apiserver's decoders report problems: JSON syntax errors in Go's
// encoding/json wording ("invalid character 'x' looking for beginning of value"), YAML bodies converted to
// JSON, and the type checks (`Object 'Kind' is missing in '...'`, API version mismatch) every create and
// update starts with.
import { parse as parseYaml } from "yaml";
import type { JsonValue, KubeObject } from "../api/object.ts";
import { apiVersionOf, type ResourceInfo } from "../api/resources.ts";
import { badRequest } from "./status.ts";

/** goJsonError renders a JSON syntax error as Go's encoding/json words it (the common cases). */
export function goJsonError(text: string): string {
  const t = text.trim();
  if (t === "") return "unexpected end of JSON input";
  try {
    JSON.parse(t);
    return "";
  } catch (err) {
    const msg = (err as Error).message;
    const m = /position (\d+)/.exec(msg);
    const tok = /Unexpected token '(.)'/.exec(msg);
    const pos = m ? Number(m[1]) : tok ? t.indexOf(tok[1]!) : -1;
    if (pos < 0 || pos >= t.length) return "unexpected end of JSON input";
    const ch = t[pos]!;
    if (pos === 0) return `invalid character '${ch}' looking for beginning of value`;
    return `invalid character '${ch}' after top-level value`;
  }
}

/** parseBody decodes a request body of the given content type into a JSON value. */
export function parseBody(text: string, contentType: string): JsonValue {
  if (/yaml/.test(contentType)) {
    try {
      return (parseYaml(text) ?? null) as JsonValue;
    } catch (err) {
      badRequest(`error converting YAML to JSON: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    badRequest(`couldn't get version/kind; json parse error: ${goJsonError(text)}`);
  }
}

/** asObject checks a decoded create/update body against the resource it is sent to. */
export function asObject(r: ResourceInfo, body: JsonValue, raw: string): KubeObject {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    badRequest(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(body) ? "array" : typeof body} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const kind = body["kind"];
  if (typeof kind !== "string" || kind === "") badRequest(`Object 'Kind' is missing in '${raw.trim()}'`);
  const want = apiVersionOf(r);
  const apiVersion = typeof body["apiVersion"] === "string" ? body["apiVersion"] : "";
  if (apiVersion !== want)
    badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${want})`);
  if (kind !== r.kind)
    badRequest(
      `${kind} in version "${r.version}" cannot be handled as a ${r.kind}: no kind "${kind}" is registered for version "${want}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
    );
  const metadata = body["metadata"];
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)))
    badRequest(
      `${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: json: cannot unmarshal ${Array.isArray(metadata) ? "array" : typeof metadata} into Go struct field ${r.kind}.metadata of type v1.ObjectMeta`,
    );
  return { ...body, apiVersion, kind, metadata: { ...(metadata ?? {}) } } as KubeObject;
}
