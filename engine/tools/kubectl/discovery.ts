// API discovery and kubectl's RESTMapper: the resources the server lists under /api/v1 and /apis/<g>/<v>,
// and the way kubectl turns what the user typed (`po`, `pods`, `pod`, `Pod`, `deployments.apps`, `all`)
// into resources. Short names and categories come from discovery, as kubectl's shortcut expander takes them.
// Discovery failures print client-go's memcache "Unhandled Error" lines, which kubectl shows on stderr.

import type { RestClient } from "./rest.ts";
import { UrlError } from "./rest.ts";

/** ApiResource is one discovered resource with its group and version. */
export interface ApiResource {
  group: string;
  version: string;
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
}

/** groupVersion is `v1` or `apps/v1`. */
export function groupVersion(r: Pick<ApiResource, "group" | "version">): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** basePath is the URL of a resource collection: /api/v1/namespaces/ns/pods. */
export function resourcePath(r: ApiResource, namespace: string | undefined, name?: string): string {
  const root = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespaced && namespace !== undefined ? `/namespaces/${namespace}` : "";
  return `${root}${ns}/${r.name}${name !== undefined ? `/${encodeURIComponent(name)}` : ""}`;
}

/** qualifiedKind is what kubectl prints for `-o name` and in messages: `pod`, `deployment.apps`. */
export function qualifiedKind(r: Pick<ApiResource, "group" | "kind">): string {
  return r.group === "" ? r.kind.toLowerCase() : `${r.kind.toLowerCase()}.${r.group}`;
}

/** qualifiedResource is `pods`, `deployments.apps` (as used in API error messages). */
export function qualifiedResource(r: Pick<ApiResource, "group" | "name">): string {
  return r.group === "" ? r.name : `${r.name}.${r.group}`;
}

/** ResourceNotFound is kubectl's `the server doesn't have a resource type "x"`. */
export class ResourceNotFound extends Error {
  override name = "ResourceNotFound";
  constructor(readonly typed: string) {
    super(`the server doesn't have a resource type "${typed}"`);
  }
}

/** DiscoveryFailed carries the transport error after client-go's retries (printed as kubectl prints it). */
export class DiscoveryFailed extends Error {
  override name = "DiscoveryFailed";
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

interface ApiResourceList {
  groupVersion: string;
  resources: {
    name: string;
    singularName?: string;
    namespaced: boolean;
    kind: string;
    verbs: string[];
    shortNames?: string[];
    categories?: string[];
  }[];
}

interface ApiGroupList {
  groups: { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion?: { version: string } }[];
}

/** Discovery caches what the server serves for one kubectl run. */
export class Discovery {
  private resources: ApiResource[] | undefined;

  constructor(
    private readonly client: RestClient,
    private readonly logError: (msg: string) => void,
  ) {}

  /** all lists every resource in preferred-version order (core first, then groups as /apis lists them). */
  async all(): Promise<ApiResource[]> {
    if (this.resources) return this.resources;
    const out: ApiResource[] = [];
    let core: { versions: string[] };
    let groups: ApiGroupList;
    try {
      core = await this.client.json<{ versions: string[] }>("/api", { timeoutParam: "32s" });
      groups = await this.client.json<ApiGroupList>("/apis", { timeoutParam: "32s" });
    } catch (e) {
      if (e instanceof UrlError) {
        // client-go's memcached discovery retries and logs each failure before kubectl gives up.
        for (let i = 0; i < 5; i++) {
          this.logError(
            `"Unhandled Error" err="couldn't get current server API group list: ${e.message.replace(/"/g, '\\"')}"`,
          );
        }
        throw new DiscoveryFailed(e);
      }
      throw e;
    }
    const lists: { group: string; version: string; path: string }[] = [];
    for (const v of core.versions ?? []) lists.push({ group: "", version: v, path: `/api/${v}` });
    for (const g of groups.groups ?? []) {
      const preferred = g.preferredVersion?.version ?? g.versions[0]?.version;
      const ordered = [...g.versions].sort((a, b) => (a.version === preferred ? -1 : b.version === preferred ? 1 : 0));
      for (const v of ordered) lists.push({ group: g.name, version: v.version, path: `/apis/${v.groupVersion}` });
    }
    const fetched = await Promise.all(
      lists.map((l) => this.client.json<ApiResourceList>(l.path, { timeoutParam: "32s" }).catch(() => undefined)),
    );
    fetched.forEach((list, i) => {
      const l = lists[i] as { group: string; version: string };
      for (const r of list?.resources ?? []) {
        if (r.name.includes("/")) continue;
        out.push({
          group: l.group,
          version: l.version,
          name: r.name,
          singularName: r.singularName || r.kind.toLowerCase(),
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: r.verbs ?? [],
          shortNames: r.shortNames ?? [],
          categories: r.categories ?? [],
        });
      }
    });
    this.resources = out;
    return out;
  }

  /** find resolves one typed resource name; `all` and other categories expand to several. */
  async find(typed: string): Promise<ApiResource[]> {
    const all = await this.all();
    const lower = typed.toLowerCase();
    const cat = all.filter((r) => r.categories.includes(lower));
    const byName = this.match(all, lower);
    if (byName.length > 0) return [byName[0] as ApiResource];
    if (cat.length > 0) {
      // One entry per resource, at its preferred version.
      const seen = new Set<string>();
      return cat.filter((r) => {
        const k = `${r.group}/${r.name}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    }
    throw new ResourceNotFound(typed);
  }

  private match(all: ApiResource[], lower: string): ApiResource[] {
    const direct = (name: string, group: string | undefined, version: string | undefined) =>
      all.filter(
        (r) =>
          (group === undefined || r.group === group) &&
          (version === undefined || r.version === version) &&
          (r.name === name ||
            r.singularName === name ||
            r.kind.toLowerCase() === name ||
            r.shortNames.includes(name)),
      );
    const found = direct(lower, undefined, undefined);
    if (found.length > 0) {
      const short = found.filter((r) => r.shortNames.includes(lower));
      return short.length > 0 ? short : found;
    }
    const parts = lower.split(".");
    if (parts.length >= 2) {
      const name = parts[0] as string;
      const withGroup = direct(name, parts.slice(1).join("."), undefined);
      if (withGroup.length > 0) return withGroup;
      if (parts.length >= 3) return direct(name, parts.slice(2).join("."), parts[1]);
    }
    return [];
  }
}
