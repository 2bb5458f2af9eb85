// Label and field selectors as the apiserver evaluates them on list and watch: comma-separated requirements,
// `k=v`, `k==v`, `k!=v`, and for labels a bare `k` (exists) and `!k` (does not exist). Field selectors name a
// dotted path (metadata.name, metadata.namespace, spec.nodeName, status.phase). The simulated components use
// them to keep their informers' caches equal to what the apiserver would send.
import type { JsonValue, KubeObject } from "../api/object.ts";

type Requirement = { key: string; op: "=" | "!=" | "exists" | "!exists"; value: string };

function parse(selector: string | undefined): Requirement[] {
  if (!selector) return [];
  return selector
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s): Requirement => {
      const ne = s.indexOf("!=");
      if (ne >= 0) return { key: s.slice(0, ne), op: "!=", value: s.slice(ne + 2) };
      const eq = s.indexOf("=");
      if (eq >= 0) return { key: s.slice(0, eq), op: "=", value: s.slice(s[eq + 1] === "=" ? eq + 2 : eq + 1) };
      return s.startsWith("!") ? { key: s.slice(1), op: "!exists", value: "" } : { key: s, op: "exists", value: "" };
    });
}

function matches(reqs: Requirement[], lookup: (key: string) => string | undefined): boolean {
  return reqs.every((r) => {
    const v = lookup(r.key);
    if (r.op === "exists") return v !== undefined;
    if (r.op === "!exists") return v === undefined;
    if (r.op === "=") return (v ?? "") === r.value;
    return (v ?? "") !== r.value;
  });
}

/** fieldValue reads a dotted field path of an object as the field selector sees it ("" when absent). */
export function fieldValue(obj: KubeObject, path: string): string {
  let cur: JsonValue | undefined = obj as unknown as JsonValue;
  for (const part of path.split(".")) {
    cur = cur && typeof cur === "object" && !Array.isArray(cur) ? cur[part] : undefined;
  }
  return cur === undefined || cur === null ? "" : String(cur);
}

/** matchesSelectors is whether `obj` is selected by the label and field selectors (absent ones select all). */
export function matchesSelectors(obj: KubeObject, labelSelector?: string, fieldSelector?: string): boolean {
  const labels = obj.metadata.labels ?? {};
  return matches(parse(labelSelector), (k) => labels[k]) && matches(parse(fieldSelector), (k) => fieldValue(obj, k));
}

/** labelSelectorOf renders a matchLabels map as a selector string: "a=1,b=2" (sorted keys). */
export function labelSelectorOf(matchLabels: Record<string, string>): string {
  return Object.keys(matchLabels)
    .sort()
    .map((k) => `${k}=${matchLabels[k]}`)
    .join(",");
}

/** labelsMatch is whether every matchLabels pair is among `labels`. */
export function labelsMatch(matchLabels: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(matchLabels).every(([k, v]) => labels?.[k] === v);
}
