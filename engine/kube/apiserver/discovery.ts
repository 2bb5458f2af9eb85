// Discovery and OpenAPI, as kube-apiserver serves them: /version, the legacy documents (/api APIVersions,
// /apis APIGroupList, /api/v1 and /apis/<group>/<version> APIResourceList), the aggregated documents kubectl
// asks for first (apidiscovery.k8s.io/v2 APIGroupDiscoveryList), and minimal OpenAPI v3 documents: one PATCH
// operation per kind declaring the `fieldValidation` query parameter, which is what kubectl's query-param
// verifier looks for before it lets the server validate fields (it then sends fieldValidation=Strict).
import type { JsonValue } from "../api/object.ts";
import type { ResourceInfo } from "../api/resources.ts";
import type { Registry, Served } from "./registry.ts";

/** VersionInfo is /version: the simulated cluster's Kubernetes build (kubeadm's control plane images). */
export const versionInfo = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.4",
  gitCommit: "a78aa47129b8539636eb86a9d00e31b2720fe06b",
  gitTreeState: "clean",
  buildDate: "2024-12-10T18:05:28Z",
  goVersion: "go1.22.10",
  compiler: "gc",
  platform: "linux/amd64",
};

/** aggregatedType is the media type of aggregated discovery (v2). */
export const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

function subresourceVerbs(sub: string): string[] {
  return sub === "status" || sub === "scale" ? ["get", "patch", "update"] : [];
}

function subKind(r: ResourceInfo, sub: string): { group: string; version: string; kind: string } {
  return sub === "scale"
    ? { group: "autoscaling", version: "v1", kind: "Scale" }
    : { group: "", version: "", kind: r.kind };
}

/** servedSubresources are the subresources this apiserver serves (status and scale). */
function servedSubresources(r: ResourceInfo): string[] {
  return r.subresources.filter((s) => s === "status" || s === "scale");
}

/** apiVersions is /api. */
export function apiVersions(hostPort: string): JsonValue {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: hostPort }],
  };
}

function groupsOf(reg: Registry): { name: string; versions: string[] }[] {
  const out: { name: string; versions: string[] }[] = [];
  for (const gv of reg.groupVersions()) {
    if (gv.group === "") continue;
    let g = out.find((x) => x.name === gv.group);
    if (!g) out.push((g = { name: gv.group, versions: [] }));
    if (!g.versions.includes(gv.version)) g.versions.push(gv.version);
  }
  return out;
}

function apiGroup(g: { name: string; versions: string[] }): JsonValue {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0]! };
}

/** apiGroupList is /apis. */
export function apiGroupList(reg: Registry): JsonValue {
  return { kind: "APIGroupList", apiVersion: "v1", groups: groupsOf(reg).map(apiGroup) };
}

/** apiGroupDoc is /apis/<group>, or null when the group is not served. */
export function apiGroupDoc(reg: Registry, group: string): JsonValue | null {
  const g = groupsOf(reg).find((x) => x.name === group);
  return g ? { kind: "APIGroup", apiVersion: "v1", ...(apiGroup(g) as Record<string, JsonValue>) } : null;
}

/** apiResourceList is /api/v1 or /apis/<group>/<version>. */
export function apiResourceList(reg: Registry, group: string, version: string): JsonValue {
  const resources: JsonValue[] = [];
  for (const s of reg.all()) {
    const r = s.info;
    if (r.group !== group || r.version !== version) continue;
    resources.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    });
    for (const sub of servedSubresources(r)) {
      const k = subKind(r, sub);
      resources.push({
        name: `${r.resource}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        ...(k.group ? { group: k.group, version: k.version } : {}),
        kind: k.kind,
        verbs: subresourceVerbs(sub),
      });
    }
  }
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

function discoveryResource(s: Served): JsonValue {
  const r = s.info;
  return {
    resource: r.resource,
    responseKind: { group: "", version: "", kind: r.kind },
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: r.verbs,
    ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length ? { categories: r.categories } : {}),
    ...(servedSubresources(r).length
      ? {
          subresources: servedSubresources(r).map((sub) => ({
            subresource: sub,
            responseKind: subKind(r, sub),
            verbs: subresourceVerbs(sub),
          })),
        }
      : {}),
  };
}

/** aggregated is the v2 aggregated discovery document of /api (core) or /apis (every group). */
export function aggregated(reg: Registry, core: boolean): JsonValue {
  const items: JsonValue[] = [];
  const groups = core ? [{ name: "", versions: ["v1"] }] : groupsOf(reg);
  for (const g of groups) {
    items.push({
      metadata: { ...(g.name ? { name: g.name } : {}), creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: reg
          .all()
          .filter((s) => s.info.group === g.name && s.info.version === v)
          .map(discoveryResource),
        freshness: "Current",
      })),
    });
  }
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** openapiRoot is /openapi/v3: the built-in group versions' documents. */
export function openapiRoot(reg: Registry): JsonValue {
  const paths: Record<string, JsonValue> = {};
  for (const gv of reg.groupVersions()) {
    if (
      !reg
        .all()
        .some((s) => s.info.group === gv.group && s.info.version === gv.version && s.info.storage === "protobuf")
    )
      continue;
    const p = gvPath(gv.group, gv.version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash(p)}` };
  }
  return { paths };
}

function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).toUpperCase().padStart(8, "0").repeat(16);
}

const queryParams = ["dryRun", "fieldManager", "fieldValidation", "force"].map((name) => ({
  name,
  in: "query",
  schema: { type: name === "force" ? "boolean" : "string", uniqueItems: true },
}));

/** openapiGroupVersion is /openapi/v3/<api|apis/group>/<version>, or null when not served. */
export function openapiGroupVersion(reg: Registry, path: string): JsonValue | null {
  const served = reg
    .all()
    .filter((s) => gvPath(s.info.group, s.info.version) === path && s.info.storage === "protobuf");
  if (served.length === 0) return null;
  const paths: Record<string, JsonValue> = {};
  for (const s of served) {
    const r = s.info;
    const base = `/${path}${r.namespaced ? "/namespaces/{namespace}" : ""}/${r.resource}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        parameters: queryParams,
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": { group: r.group, version: r.version, kind: r.kind },
        responses: { "200": { description: "OK" } },
      },
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: versionInfo.gitVersion },
    paths,
    components: { schemas: {} },
  };
}
