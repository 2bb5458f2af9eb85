// The resources a session's apiserver serves: the built-in ones (engine/kube/api/resources.ts) and, for each
// CustomResourceDefinition stored in etcd, its served versions (crdResource), with the CRD's status/scale
// subresources and additionalPrinterColumns. Rebuilt whenever the CRD watch cache changes.
import type { JsonValue, KubeObject } from "../api/object.ts";
import { builtinResources, crdResource, type ResourceInfo } from "../api/resources.ts";
import type { PrinterColumn } from "./table.ts";

/** Served is one served resource and, for custom resources, its CRD's printer columns. */
export interface Served {
  info: ResourceInfo;
  printerColumns?: PrinterColumn[];
  /** crd is the CRD's name for custom resources. */
  crd?: string;
}

type Obj = Record<string, JsonValue>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** servedFromCrd turns one stored CRD into the resources of its served versions (none while not established). */
export function servedFromCrd(crd: KubeObject): Served[] {
  const spec = isObj(crd["spec"]) ? crd["spec"] : {};
  const names = isObj(spec["names"]) ? spec["names"] : {};
  const group = typeof spec["group"] === "string" ? spec["group"] : "";
  const kind = typeof names["kind"] === "string" ? names["kind"] : "";
  const plural = typeof names["plural"] === "string" ? names["plural"] : "";
  if (!group || !kind || !plural) return [];
  const out: Served[] = [];
  for (const v of Array.isArray(spec["versions"]) ? spec["versions"] : []) {
    if (!isObj(v) || v["served"] === false || typeof v["name"] !== "string") continue;
    const info = crdResource({
      group,
      version: v["name"],
      scope: spec["scope"] === "Cluster" ? "Cluster" : "Namespaced",
      names: {
        kind,
        plural,
        ...(typeof names["singular"] === "string" ? { singular: names["singular"] } : {}),
        ...(Array.isArray(names["shortNames"]) ? { shortNames: names["shortNames"].map(String) } : {}),
        ...(Array.isArray(names["categories"]) ? { categories: names["categories"].map(String) } : {}),
      },
    });
    const sub = isObj(v["subresources"]) ? v["subresources"] : {};
    info.subresources = ["status", "scale"].filter((s) => isObj(sub[s]));
    const cols = Array.isArray(v["additionalPrinterColumns"]) ? v["additionalPrinterColumns"] : [];
    const printerColumns = cols.filter(isObj).map((c): PrinterColumn => ({
      name: String(c["name"] ?? ""),
      type: String(c["type"] ?? "string"),
      jsonPath: String(c["jsonPath"] ?? ""),
      ...(typeof c["format"] === "string" ? { format: c["format"] } : {}),
      ...(typeof c["description"] === "string" ? { description: c["description"] } : {}),
      ...(typeof c["priority"] === "number" ? { priority: c["priority"] } : {}),
    }));
    out.push({ info, printerColumns, crd: crd.metadata.name ?? "" });
  }
  return out;
}

/** Registry looks served resources up by group/version/resource or by plural alone. */
export class Registry {
  private custom: Served[] = [];
  private readonly builtin: Served[] = builtinResources.map((info) => ({ info }));

  /** setCrds replaces the custom resources with those of the given CRDs. */
  setCrds(crds: KubeObject[]): void {
    this.custom = crds.flatMap(servedFromCrd);
  }

  /** all is every served resource, built-ins first. */
  all(): Served[] {
    return [...this.builtin, ...this.custom];
  }

  /** lookup finds group/version/resource. */
  lookup(group: string, version: string, resource: string): Served | undefined {
    return this.all().find((s) => s.info.group === group && s.info.version === version && s.info.resource === resource);
  }

  /** byPlural finds a resource by its URL plural (the in-process client's addressing), built-ins first. */
  byPlural(resource: string): Served | undefined {
    return this.all().find((s) => s.info.resource === resource);
  }

  /** groupVersions lists the served group versions in discovery order ("" is the core group). */
  groupVersions(): { group: string; version: string }[] {
    const seen = new Set<string>();
    const out: { group: string; version: string }[] = [];
    for (const s of this.all()) {
      const k = `${s.info.group}/${s.info.version}`;
      if (!seen.has(k)) {
        seen.add(k);
        out.push({ group: s.info.group, version: s.info.version });
      }
    }
    return out;
  }

  /** hasGroupVersion says whether group/version is served. */
  hasGroupVersion(group: string, version: string): boolean {
    return this.all().some((s) => s.info.group === group && s.info.version === version);
  }
}
