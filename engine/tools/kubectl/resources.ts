// kubectl's resource builder, the part the commands share: `TYPE NAME...`, `TYPE1,TYPE2`, `TYPE/NAME` and
// `-f FILE` arguments resolved through discovery into (resource, name) requests, with kubectl's errors for
// mixed forms; reading objects (single GET or LIST with selectors, following `continue`), and the List
// kubectl wraps several objects in.

import type { KubeObject } from "../../kube/api/object.ts";
import type { Kube } from "./ctx.ts";
import type { ApiResource } from "./discovery.ts";
import { groupVersion, resourcePath } from "./discovery.ts";
import { KubectlError } from "./errors.ts";

/** Request is one resource type with the names asked for (none: the whole collection). */
export interface Request {
  resource: ApiResource;
  names: string[];
}

/** parseResourceArgs is the builder's ResourceTypeOrNameArgs. */
export async function parseResourceArgs(kube: Kube, args: string[]): Promise<Request[]> {
  const slashed = args.filter((a) => a.includes("/"));
  if (slashed.length > 0) {
    if (slashed.length !== args.length) {
      throw new KubectlError(
        "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'",
      );
    }
    const out: Request[] = [];
    for (const a of args) {
      const i = a.indexOf("/");
      const typed = a.slice(0, i);
      const name = a.slice(i + 1);
      if (name === "") throw new KubectlError(`arguments in resource/name form must have a single resource and name`);
      const [r] = await kube.discovery().find(typed);
      const last = out[out.length - 1];
      if (last && last.resource === r) last.names.push(name);
      else out.push({ resource: r as ApiResource, names: [name] });
    }
    return out;
  }
  const [types, ...names] = args;
  const out: Request[] = [];
  for (const t of (types ?? "").split(",")) {
    if (t === "") continue;
    for (const r of await kube.discovery().find(t)) {
      if (!out.some((o) => o.resource === r)) out.push({ resource: r, names: [...names] });
    }
  }
  return out;
}

/** withTypeMeta adds the apiVersion and kind a list's items lack (kubectl's builder does). */
export function withTypeMeta(r: ApiResource, obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: groupVersion(r), kind: r.kind, ...rest } as KubeObject;
}

/** ListOptions are the collection query parameters. */
export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  allNamespaces: boolean;
  /** includeObject asks a Table's rows to carry the whole object (--sort-by sorts on it). */
  includeObject?: string;
}

/** listPath is where a collection is listed, honouring -A. */
export function listPath(kube: Kube, r: ApiResource, allNamespaces: boolean): string {
  return resourcePath(r, allNamespaces ? undefined : kube.namespace());
}

/** listAll reads a whole collection in chunks of 500, as kubectl does. */
export async function listAll<
  T extends { metadata?: { continue?: string; resourceVersion?: string }; items?: unknown[]; rows?: unknown[] },
>(kube: Kube, path: string, o: ListOptions, accept?: string): Promise<T> {
  let first: T | undefined;
  let cont: string | undefined;
  do {
    const page = await kube.client().json<T>(path, {
      query: {
        labelSelector: o.labelSelector || undefined,
        fieldSelector: o.fieldSelector || undefined,
        includeObject: o.includeObject,
        limit: "500",
        continue: cont,
      },
      ...(accept ? { accept } : {}),
    });
    if (!first) first = page;
    else {
      if (first.items && page.items) first.items.push(...page.items);
      if (first.rows && page.rows) first.rows.push(...page.rows);
    }
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return first as T;
}

/** tableAccept is the Accept header kubectl sends for human-readable output. */
export const tableAccept =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/** asList is the List kubectl prints several objects as. */
export function asList(items: KubeObject[]): KubeObject {
  return {
    apiVersion: "v1",
    items: items as unknown as KubeObject["metadata"],
    kind: "List",
    metadata: { resourceVersion: "" },
  } as unknown as KubeObject;
}
