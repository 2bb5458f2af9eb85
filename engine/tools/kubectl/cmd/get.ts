// `kubectl get`: resources by any name kubectl accepts, server-side Tables printed like kubectl's table
// printer (with -A, --show-labels, --no-headers, -o wide), the generic printers (-o yaml|json|name|jsonpath|
// custom-columns) on the object or on a List, `-w` (list, then the watch's rows), and `--raw PATH` copied
// from the server as is (streamed, so `?watch=1` works). Errors are collected and printed after the output,
// as kubectl's builder does with ContinueOnError.

import { Command } from "../../cobra/command.ts";
import type { KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import type { ApiResource } from "../discovery.ts";
import { qualifiedKind, resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import type { Output } from "../printers/printer.ts";
import { getFormats, parseOutput, printGeneric } from "../printers/printer.ts";
import type { Table } from "../printers/table.ts";
import { addTable, TableWriter } from "../printers/table.ts";
import type { Request } from "../resources.ts";
import { asList, listAll, listPath, parseResourceArgs, tableAccept, withTypeMeta } from "../resources.ts";
import { responseError } from "../rest.ts";
import { watchEvents } from "../watch.ts";
import { MultiError } from "./common.ts";
import type { JsonValue } from "../../../kube/api/object.ts";
import { JsonPath } from "../printers/jsonpath.ts";
import { relaxedJsonPath } from "../printers/printer.ts";

/**
 * sortBy orders items by a --sort-by field as kubectl compares them (missing fields first, strings bytewise).
 * Ours is stable; kubectl's sort.Sort is not, so items with equal keys may print in another order.
 */
function sortBy<T>(items: T[], expr: string, view: (t: T) => JsonValue): T[] {
  const path = new JsonPath(relaxedJsonPath(expr));
  const keyed = items.map((t) => {
    let v: JsonValue[] = [];
    try {
      v = path.findValues(view(t));
    } catch {
      v = [];
    }
    return { t, k: v.length > 0 ? (v[0] as JsonValue) : undefined };
  });
  const less = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => {
    if (a === undefined) return b !== undefined;
    if (b === undefined) return false;
    if (typeof a === "number" && typeof b === "number") return a < b;
    if (typeof a === "string" && typeof b === "string") return a < b;
    if (typeof a === "boolean" && typeof b === "boolean") return !a && b;
    return false;
  };
  keyed.sort((p, q) => (less(p.k, q.k) ? -1 : less(q.k, p.k) ? 1 : 0));
  return keyed.map((x) => x.t);
}

/** newGetCommand builds `kubectl get`. */
export function newGetCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
    short: "Display one or many resources",
    long: "Display one or many resources.",
    run: async (_c, args) => run(kube, o, args),
  });
  const f = cmd.flags();
  const o: GetOpts = {
    output: f.string("output", "o", "", "Output format."),
    selector: f.string("selector", "l", "", "Selector (label query) to filter on."),
    fieldSelector: f.string("field-selector", "", "", "Selector (field query) to filter on."),
    allNamespaces: f.bool(
      "all-namespaces",
      "A",
      false,
      "If present, list the requested object(s) across all namespaces.",
    ),
    watch: f.bool("watch", "w", false, "After listing/getting the requested object, watch for changes."),
    watchOnly: f.bool(
      "watch-only",
      "",
      false,
      "Watch for changes to the requested object(s), without listing/getting first.",
    ),
    showLabels: f.bool("show-labels", "", false, "When printing, show all labels as the last column."),
    labelColumns: f.stringSlice(
      "label-columns",
      "L",
      [],
      "Accepts a comma separated list of labels that are going to be presented as columns.",
    ),
    noHeaders: f.bool(
      "no-headers",
      "",
      false,
      "When using the default or custom-column output format, don't print headers.",
    ),
    raw: f.string("raw", "", "", "Raw URI to request from the server."),
    ignoreNotFound: f.bool(
      "ignore-not-found",
      "",
      false,
      "If set to true, suppresses NotFound error for specific objects that do not exist.",
    ),
    sortBy: f.string("sort-by", "", "", "If non-empty, sort list types using this field specification."),
    showManagedFields: f.bool(
      "show-managed-fields",
      "",
      false,
      "If true, keep the managedFields when printing objects in JSON or YAML format.",
    ),
  };
  return cmd;
}

interface GetOpts {
  output: () => string;
  selector: () => string;
  fieldSelector: () => string;
  allNamespaces: () => boolean;
  watch: () => boolean;
  watchOnly: () => boolean;
  showLabels: () => boolean;
  labelColumns: () => string[];
  noHeaders: () => boolean;
  raw: () => string;
  ignoreNotFound: () => boolean;
  sortBy: () => string;
  showManagedFields: () => boolean;
}

async function run(kube: Kube, o: GetOpts, args: string[]): Promise<void> {
  const io = kube.io;
  if (o.raw() !== "") return raw(kube, o.raw(), args);
  if (args.length === 0) {
    io.stderr(
      'You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of supported resources.\n\n',
    );
    throw new KubectlError(
      `Required resource not specified.\nUse "kubectl explain <resource>" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples`,
    );
  }
  const requests = await parseResourceArgs(kube, args);
  const out = parseOutput(o.output(), getFormats);
  if (o.selector() !== "" && requests.some((r) => r.names.length > 0)) {
    throw new KubectlError("name cannot be provided when a selector is specified");
  }
  if (o.watch() || o.watchOnly()) return watch(kube, o, requests, out);
  const errors: unknown[] = [];
  if (out.kind === "table" || out.kind === "wide") {
    await printTables(kube, o, requests, out.kind === "wide", errors);
  } else {
    const singleItem = requests.length === 1 && requests[0]?.names.length === 1;
    const objects: KubeObject[] = [];
    for (const rq of requests) objects.push(...(await fetchObjects(kube, o, rq, errors)));
    if (!o.showManagedFields()) for (const x of objects) delete x.metadata?.managedFields;
    if (o.sortBy() !== "")
      objects.splice(0, objects.length, ...sortBy(objects, o.sortBy(), (x) => x as unknown as JsonValue));
    if (singleItem && errors.length > 0) throw errors[0];
    if (!(objects.length === 0 && o.ignoreNotFound())) {
      const obj = singleItem && objects.length === 1 ? (objects[0] as KubeObject) : asList(objects);
      io.stdout(printGeneric(obj, out, false, "", o.noHeaders()));
    }
  }
  if (errors.length > 0) throw new MultiError(errors);
}

function isNotFound(e: unknown): boolean {
  return (e as { status?: { reason?: string } }).status?.reason === "NotFound";
}

async function fetchObjects(kube: Kube, o: GetOpts, rq: Request, errors: unknown[]): Promise<KubeObject[]> {
  const r = rq.resource;
  const ns = o.allNamespaces() ? undefined : kube.namespace();
  if (rq.names.length === 0) {
    const list = await listAll<{ items: KubeObject[] }>(kube, listPath(kube, r, o.allNamespaces()), {
      labelSelector: o.selector(),
      fieldSelector: o.fieldSelector(),
      allNamespaces: o.allNamespaces(),
    });
    return (list.items ?? []).map((i) => withTypeMeta(r, i));
  }
  const out: KubeObject[] = [];
  for (const name of rq.names) {
    try {
      out.push(await kube.client().json<KubeObject>(resourcePath(r, ns ?? kube.namespace(), name)));
    } catch (e) {
      if (!(o.ignoreNotFound() && isNotFound(e))) errors.push(e);
    }
  }
  return out;
}

async function fetchTables(kube: Kube, o: GetOpts, rq: Request, errors: unknown[]): Promise<Table[]> {
  const r = rq.resource;
  if (rq.names.length === 0) {
    const t = await listAll<Table>(
      kube,
      listPath(kube, r, o.allNamespaces()),
      {
        labelSelector: o.selector(),
        fieldSelector: o.fieldSelector(),
        allNamespaces: o.allNamespaces(),
        ...(o.sortBy() !== "" ? { includeObject: "Object" } : {}),
      },
      tableAccept,
    );
    if (o.sortBy() !== "") t.rows = sortBy(t.rows, o.sortBy(), (row) => (row.object ?? null) as JsonValue);
    return [t];
  }
  const out: Table[] = [];
  for (const name of rq.names) {
    try {
      out.push(await kube.client().json<Table>(resourcePath(r, kube.namespace(), name), { accept: tableAccept }));
    } catch (e) {
      if (!(o.ignoreNotFound() && isNotFound(e))) errors.push(e);
    }
  }
  return out;
}

async function printTables(
  kube: Kube,
  o: GetOpts,
  requests: Request[],
  wide: boolean,
  errors: unknown[],
): Promise<void> {
  const tw = new TableWriter();
  let written = false;
  const withKind = requests.length > 1;
  for (const rq of requests) {
    const tables = await fetchTables(kube, o, rq, errors);
    tw.resetWidths();
    let header = true;
    let text = "";
    for (const t of tables) {
      addTable(
        tw,
        t,
        {
          wide,
          noHeaders: o.noHeaders(),
          withNamespace: o.allNamespaces() && rq.resource.namespaced,
          showLabels: o.showLabels(),
          labelColumns: o.labelColumns(),
          ...(withKind ? { kindPrefix: qualifiedKind(rq.resource) } : {}),
        },
        header,
      );
      if (t.rows.length > 0) header = false;
    }
    text = tw.flush();
    if (text !== "") {
      kube.io.stdout(written && !o.noHeaders() ? `\n${text}` : text);
      written = true;
    }
  }
  if (!written && errors.length === 0 && !o.ignoreNotFound()) {
    const allNamespaced = !o.allNamespaces() && requests.every((r) => r.resource.namespaced);
    kube.io.stderr(allNamespaced ? `No resources found in ${kube.namespace()} namespace.\n` : "No resources found\n");
  }
}

async function raw(kube: Kube, path: string, args: string[]): Promise<void> {
  if (args.length > 0) throw new KubectlError("arguments may not be passed when --raw is specified");
  const { res, url } = await kube.client().open(path);
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    throw responseError(status, Buffer.concat(chunks), "GET", url);
  }
  for await (const c of res) kube.io.stdout(c as Buffer);
}

async function watch(kube: Kube, o: GetOpts, requests: Request[], out: Output): Promise<void> {
  if (requests.length !== 1 || (requests[0] as Request).names.length > 1) {
    throw new KubectlError(
      `watch is only supported on individual resources and resource collections, but ${requests.reduce((n, r) => n + Math.max(1, r.names.length), 0)} resources were found`,
    );
  }
  const rq = requests[0] as Request;
  const r: ApiResource = rq.resource;
  const human = out.kind === "table" || out.kind === "wide";
  const tw = new TableWriter();
  const tableOpts = {
    wide: out.kind === "wide",
    noHeaders: o.noHeaders(),
    withNamespace: o.allNamespaces() && r.namespaced,
    showLabels: o.showLabels(),
    labelColumns: o.labelColumns(),
  };
  let printedHeader = false;
  let lastColumns = "";
  let columns: Table["columnDefinitions"] = [];
  const printTable = (t: Table) => {
    const cols = JSON.stringify(t.columnDefinitions ?? []);
    let header = !printedHeader;
    if (printedHeader && ((t.columnDefinitions ?? []).length === 0 || cols === lastColumns)) header = false;
    if ((t.columnDefinitions ?? []).length === 0) t.columnDefinitions = columns;
    else if (cols !== lastColumns) {
      lastColumns = cols;
      columns = t.columnDefinitions;
      header = true;
    }
    if (t.rows.length > 0) printedHeader = true;
    addTable(tw, t, tableOpts, header);
    kube.io.stdout(tw.flush());
  };
  let genericCount = 0;
  const printObject = (obj: KubeObject) => {
    if (!o.showManagedFields()) delete obj.metadata?.managedFields;
    const text = printGeneric(obj, out);
    if (out.kind === "yaml" && genericCount > 0) kube.io.stdout("---\n");
    kube.io.stdout(text);
    genericCount++;
  };
  const single = rq.names.length === 1 ? (rq.names[0] as string) : undefined;
  // A named object is read first: a missing one is kubectl's NotFound, not an empty watch.
  if (single !== undefined) await kube.client().json(resourcePath(r, kube.namespace(), single));
  const listQuery = {
    labelSelector: o.selector() || undefined,
    fieldSelector: single !== undefined ? `metadata.name=${single}` : o.fieldSelector() || undefined,
  };
  const path = listPath(kube, r, o.allNamespaces());
  let rv: string;
  if (human) {
    const t = await listAll<Table>(kube, path, { ...listQuery, allNamespaces: o.allNamespaces() }, tableAccept);
    rv = t.metadata?.resourceVersion ?? "";
    if (!o.watchOnly()) printTable(t);
  } else {
    const list = await listAll<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>(kube, path, {
      ...listQuery,
      allNamespaces: o.allNamespaces(),
    });
    rv = list.metadata?.resourceVersion ?? "";
    if (!o.watchOnly()) for (const i of list.items ?? []) printObject(withTypeMeta(r, i));
  }
  await watchEvents(kube, path, { ...listQuery, resourceVersion: rv }, human ? tableAccept : undefined, (ev) => {
    if (human) printTable(ev.object as unknown as Table);
    else printObject(ev.object as KubeObject);
  });
}
