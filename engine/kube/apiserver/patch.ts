// The three patch types the apiserver accepts on PATCH: JSON merge patch (RFC 7386), JSON patch (RFC 6902)
// and strategic merge patch for built-in kinds — maps merge; lists of objects whose field declares a
// patchMergeKey (containers, env, volumes by name; container ports by containerPort; volumeMounts by
// mountPath; ...) merge by that key; `$patch: delete|replace|merge`, `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>` and `$retainKeys` directives; other lists replace. Facts from
// k8s.io/apimachinery pkg/util/strategicpatch and the patchMergeKey tags of k8s.io/api.
import type { JsonValue } from "../api/object.ts";

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** PatchError is a patch that cannot be applied (the handler answers it with the apiserver's status). */
export class PatchError extends Error {
  override name = "PatchError";
}

/** mergePatch applies an RFC 7386 JSON merge patch. */
export function mergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? null, v);
  }
  return out;
}

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new PatchError(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path.slice(1).split("/").map(unescapePointer);
}

function getAt(doc: JsonValue, segs: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isObj(cur)) cur = cur[s];
    else return undefined;
  }
  return cur;
}

function parentOf(doc: JsonValue, segs: string[], path: string): { parent: Obj | JsonValue[]; last: string } {
  const parent = getAt(doc, segs.slice(0, -1));
  if (!Array.isArray(parent) && !isObj(parent)) throw new PatchError(`doc is missing path: "${path}": missing value`);
  return { parent, last: segs.at(-1)! };
}

function addAt(doc: JsonValue, path: string, value: JsonValue): JsonValue {
  const segs = pointer(path);
  if (segs.length === 0) return value;
  const { parent, last } = parentOf(doc, segs, path);
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length)
      throw new PatchError(`add operation does not apply: doc is missing path: "${path}": missing value`);
    parent.splice(i, 0, value);
  } else parent[last] = value;
  return doc;
}

function removeAt(doc: JsonValue, path: string): JsonValue {
  const segs = pointer(path);
  const { parent, last } = parentOf(doc, segs, path);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length)
      throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
    parent.splice(i, 1);
  } else {
    if (!(last in parent))
      throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
    delete parent[last];
  }
  return doc;
}

/** jsonPatch applies an RFC 6902 JSON patch. */
export function jsonPatch(target: JsonValue, ops: JsonValue): JsonValue {
  if (!Array.isArray(ops)) throw new PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  let doc = structuredClone(target);
  for (const op of ops) {
    if (!isObj(op)) throw new PatchError("json: cannot unmarshal into Go value of type jsonpatch.Operation");
    const path = typeof op["path"] === "string" ? op["path"] : "";
    switch (op["op"]) {
      case "add":
        doc = addAt(doc, path, structuredClone(op["value"] ?? null));
        break;
      case "remove":
        doc = removeAt(doc, path);
        break;
      case "replace":
        if (getAt(doc, pointer(path)) === undefined)
          throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
        doc = addAt(removeAt(doc, path), path, structuredClone(op["value"] ?? null));
        break;
      case "move":
      case "copy": {
        const from = typeof op["from"] === "string" ? op["from"] : "";
        const v = getAt(doc, pointer(from));
        if (v === undefined)
          throw new PatchError(
            `${String(op["op"])} operation does not apply: doc is missing from path: ${from}: missing value`,
          );
        if (op["op"] === "move") doc = removeAt(doc, from);
        doc = addAt(doc, path, structuredClone(v));
        break;
      }
      case "test":
        if (JSON.stringify(getAt(doc, pointer(path))) !== JSON.stringify(op["value"] ?? null))
          throw new PatchError(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new PatchError(`Unexpected kind: ${String(op["op"])}`);
    }
  }
  return doc;
}

/**
 * mergeKeyOf is the patchMergeKey of a list field, by its name and the field holding it; undefined means the
 * list has no merge strategy and is replaced. "" marks a merged list of primitives (finalizers).
 */
function mergeKeyOf(field: string, parentField: string): string | undefined {
  switch (field) {
    case "containers":
    case "initContainers":
    case "ephemeralContainers":
    case "env":
    case "volumes":
    case "imagePullSecrets":
    case "resourceClaims":
    case "containerStatuses":
    case "initContainerStatuses":
      return "name";
    case "ports":
      return parentField === "spec" ? "port" : "containerPort";
    case "volumeMounts":
      return "mountPath";
    case "volumeDevices":
      return "devicePath";
    case "hostAliases":
      return "ip";
    case "ownerReferences":
      return "uid";
    case "conditions":
    case "addresses":
      return "type";
    case "topologySpreadConstraints":
      return "topologyKey";
    case "finalizers":
      return "";
    default:
      return undefined;
  }
}

/** strategicMergePatch applies a strategic merge patch to a built-in object. */
export function strategicMergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObj(patch)) throw new PatchError('unable to find api field in struct Unstructured for the json field ""');
  return mergeMap(isObj(target) ? target : {}, patch, "");
}

function mergeMap(target: Obj, patch: Obj, field: string): Obj {
  const directive = patch["$patch"];
  if (directive === "replace") {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest) as Obj;
  }
  if (directive === "delete") return {};
  const out: Obj = { ...target };
  const retain = patch["$retainKeys"];
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$patch" || k === "$retainKeys" || k.startsWith("$setElementOrder/")) continue;
    if (k.startsWith("$deleteFromPrimitiveList/")) {
      const list = k.slice("$deleteFromPrimitiveList/".length);
      const cur = out[list];
      if (Array.isArray(cur) && Array.isArray(v)) {
        const drop = new Set(v.map((x) => JSON.stringify(x)));
        out[list] = cur.filter((x) => !drop.has(JSON.stringify(x)));
      }
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (Array.isArray(v)) out[k] = mergeList(Array.isArray(cur) ? cur : [], v, k, field);
    else if (isObj(v)) out[k] = isObj(cur) ? mergeMap(cur, v, k) : mergeMap({}, v, k);
    else out[k] = v;
  }
  if (Array.isArray(retain)) {
    const keep = new Set(retain.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith("$setElementOrder/")) continue;
    const list = k.slice("$setElementOrder/".length);
    const key = mergeKeyOf(list, field);
    const cur = out[list];
    if (Array.isArray(cur) && Array.isArray(v) && key !== undefined) out[list] = orderBy(cur, v, key);
  }
  return out;
}

function orderBy(list: JsonValue[], order: JsonValue[], key: string): JsonValue[] {
  const id = (x: JsonValue) => JSON.stringify(key === "" ? x : isObj(x) ? (x[key] ?? null) : x);
  const pos = new Map(order.map((x, i) => [id(x), i]));
  const ranked = list.map((x, i) => ({ x, i, p: pos.get(id(x)) }));
  const inOrder = ranked.filter((r) => r.p !== undefined).sort((a, b) => a.p! - b.p!);
  const rest = ranked.filter((r) => r.p === undefined);
  return [...inOrder, ...rest].map((r) => r.x);
}

function stripDirectives(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.filter((x) => !(isObj(x) && x["$patch"] !== undefined)).map(stripDirectives);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith("$")) out[k] = stripDirectives(x);
  return out;
}

function mergeList(target: JsonValue[], patch: JsonValue[], field: string, parentField: string): JsonValue[] {
  if (patch.some((x) => isObj(x) && x["$patch"] === "replace"))
    return patch.filter((x) => !(isObj(x) && x["$patch"] === "replace")).map(stripDirectives);
  const key = mergeKeyOf(field, parentField);
  if (key === undefined) return patch.map(stripDirectives);
  if (key === "") {
    const out = target.slice();
    for (const x of patch) if (!out.some((y) => JSON.stringify(y) === JSON.stringify(x))) out.push(x);
    return out;
  }
  const out = target.slice();
  for (const item of patch) {
    if (!isObj(item)) continue;
    const id = item[key];
    const at = out.findIndex((x) => isObj(x) && JSON.stringify(x[key]) === JSON.stringify(id));
    if (item["$patch"] === "delete") {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeMap(out[at] as Obj, item, field);
    else out.push(stripDirectives(item));
  }
  return out;
}
