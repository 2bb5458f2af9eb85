// The commands that change one object in place: `kubectl delete` (by name, -f, -l or --all; waits for the
// object to be gone, as kubectl's --wait does), `kubectl scale` (PATCH of the scale subresource), and
// `kubectl patch` (--type strategic|merge|json, `patched` or `patched (no change)`).

import { parse as parseYaml } from "yaml";
import { Command } from "../../cobra/command.ts";
import { ApiError } from "../../../kube/api/client.ts";
import type { KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import type { ApiResource } from "../discovery.ts";
import { qualifiedKind, resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { createFormats, nameOf, parseOutput, printGeneric } from "../printers/printer.ts";
import { listAll, listPath, parseResourceArgs } from "../resources.ts";
import { mapObject, objectNamespace, writeQuery } from "./apply.ts";
import { MultiError, readFilenames } from "./common.ts";
import { dryRunSuffix, parseDryRun } from "./create.ts";

interface Target {
  resource: ApiResource;
  namespace: string | undefined;
  name: string;
}

async function untilGone(kube: Kube, path: string, deadlineMs: number): Promise<void> {
  for (;;) {
    try {
      await kube.client().json(path);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
    if (Date.now() > deadlineMs) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** newDeleteCommand builds `kubectl delete`. */
export function newDeleteCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)])",
    short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
    run: async (_c, args) => {
      const targets: Target[] = [];
      const errors: unknown[] = [];
      if (filenames().length > 0) {
        for (const { obj, source } of readFilenames(kube, filenames())) {
          const r = await mapObject(kube, obj, source);
          targets.push({ resource: r, namespace: objectNamespace(kube, r, obj), name: obj.metadata.name ?? "" });
        }
      } else {
        if (args.length === 0) {
          throw new KubectlError(
            "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
          );
        }
        for (const rq of await parseResourceArgs(kube, args)) {
          const ns = rq.resource.namespaced ? kube.namespace() : undefined;
          if (rq.names.length > 0) {
            for (const n of rq.names) targets.push({ resource: rq.resource, namespace: ns, name: n });
            continue;
          }
          if (!all() && selector() === "") {
            throw new KubectlError(`resource(s) were provided, but no name was specified`);
          }
          const list = await listAll<{ items: KubeObject[] }>(kube, listPath(kube, rq.resource, false), {
            labelSelector: selector(),
            allNamespaces: false,
          });
          for (const it of list.items ?? [])
            targets.push({ resource: rq.resource, namespace: ns, name: it.metadata.name ?? "" });
        }
      }
      const dry = parseDryRun(dryRun());
      const waits: string[] = [];
      for (const t of targets) {
        const path = resourcePath(t.resource, t.namespace, t.name);
        try {
          if (dry !== "client") {
            await kube.client().do(path, {
              method: "DELETE",
              body: JSON.stringify({ propagationPolicy: "Background" }),
              contentType: "application/json",
              query: dry === "server" ? { dryRun: "All" } : {},
            });
          }
          kube.io.stdout(
            output() === "name"
              ? `${qualifiedKind(t.resource)}/${t.name}\n`
              : `${qualifiedKind(t.resource)} "${t.name}" deleted${dryRunSuffix(dry)}\n`,
          );
          if (dry === "none" && wait()) waits.push(path);
        } catch (e) {
          if (e instanceof ApiError && e.code === 404 && ignoreNotFound()) continue;
          errors.push(e);
        }
      }
      const deadline = Date.now() + 3600_000;
      for (const p of waits) await untilGone(kube, p, deadline);
      if (targets.length === 0) kube.io.stdout("No resources found\n");
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new MultiError(errors);
    },
  });
  const f = cmd.flags();
  const filenames = f.stringSlice("filename", "f", [], "containing the resource to delete.");
  const selector = f.string("selector", "l", "", "Selector (label query) to filter on.");
  const all = f.bool("all", "", false, "Delete all resources, in the namespace of the specified resource types.");
  const ignoreNotFound = f.bool("ignore-not-found", "", false, 'Treat "resource not found" as a successful delete.');
  const wait = f.bool("wait", "", true, "If true, wait for resources to be gone before returning.");
  const output = f.string("output", "o", "", 'Output mode. Use "-o name" for shorter output (resource/name).');
  const dryRun = f.string("dry-run", "", "none", 'Must be "none", "server", or "client".');
  f.int("grace-period", "", -1, "Period of time in seconds given to the resource to terminate gracefully.");
  f.bool("force", "", false, "If true, immediately remove resources from API and bypass graceful deletion.");
  f.bool("now", "", false, "If true, resources are signaled for immediate shutdown (same as --grace-period=1).");
  return cmd;
}

/** newScaleCommand builds `kubectl scale`. */
export function newScaleCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
    short: "Set a new size for a deployment, replica set, or replication controller",
    run: async (_c, args) => {
      if (args.length === 0) {
        throw new KubectlError(
          "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
        );
      }
      if (replicas() < 0)
        throw new KubectlError("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
      const errors: unknown[] = [];
      for (const rq of await parseResourceArgs(kube, args)) {
        for (const name of rq.names) {
          const objPath = resourcePath(rq.resource, kube.namespace(), name);
          const path = `${objPath}/scale`;
          try {
            await kube
              .client()
              .json(objPath)
              .catch((e: unknown) => {
                throw new KubectlError(`no objects passed to scale ${e instanceof Error ? e.message : String(e)}`);
              });
            const spec: Record<string, unknown> = { replicas: replicas() };
            const body: Record<string, unknown> = { spec };
            if (resourceVersion() !== "" || currentReplicas() >= 0) {
              const scale = await kube.client().json<KubeObject>(path);
              const cur = (scale["spec"] as { replicas?: number } | undefined)?.replicas ?? 0;
              if (currentReplicas() >= 0 && cur !== currentReplicas()) {
                throw new KubectlError(`Expected replicas to be ${currentReplicas()}, was ${cur}`);
              }
              const rv = scale.metadata.resourceVersion ?? "";
              if (resourceVersion() !== "" && rv !== resourceVersion()) {
                throw new KubectlError(`Expected resource version to be ${resourceVersion()}, was ${rv}`);
              }
            }
            await kube
              .client()
              .do(path, { method: "PATCH", body: JSON.stringify(body), contentType: "application/merge-patch+json" });
            kube.io.stdout(`${qualifiedKind(rq.resource)}/${name} scaled\n`);
          } catch (e) {
            errors.push(e);
          }
        }
      }
      if (errors.length > 0) throw errors.length === 1 ? errors[0] : new MultiError(errors);
    },
  });
  const f = cmd.flags();
  const replicas = f.int("replicas", "", 0, "The new desired number of replicas. Required.");
  cmd.markFlagRequired("replicas");
  const resourceVersion = f.string(
    "resource-version",
    "",
    "",
    "Precondition for resource version. Requires that the current resource version match this value in order to scale.",
  );
  const currentReplicas = f.int(
    "current-replicas",
    "",
    -1,
    "Precondition for current size. Requires that the current size of the resource match this value in order to scale. -1 (default) for no condition.",
  );
  return cmd;
}

const patchTypes: Record<string, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
};

/** newPatchCommand builds `kubectl patch`. */
export function newPatchCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
    short: "Update fields of a resource",
    run: async (_c, args) => {
      if (patch() === "")
        throw new KubectlError("must specify --patch or --patch-file containing the contents of the patch");
      const ct = patchTypes[type()];
      if (!ct) throw new KubectlError(`--type must be one of [json merge strategic], not "${type()}"`);
      // apimachinery's yaml.ToJSON: text that looks like JSON goes to the server as it is.
      let body = patch();
      if (!/^\s*[{[]/.test(body)) {
        try {
          body = JSON.stringify(parseYaml(body));
        } catch (e) {
          throw new KubectlError(`unable to parse "${patch()}": ${(e as Error).message}`);
        }
      }
      const out = parseOutput(output(), createFormats);
      const errors: unknown[] = [];
      for (const rq of await parseResourceArgs(kube, args)) {
        for (const name of rq.names) {
          const path = resourcePath(rq.resource, kube.namespace(), name);
          try {
            const before = await kube.client().json<KubeObject>(path);
            const after = await kube.client().json<KubeObject>(path, {
              method: "PATCH",
              body,
              contentType: ct,
              query: writeQuery("kubectl-patch", "none"),
            });
            if (output() !== "") kube.io.stdout(printGeneric(after, out));
            else {
              const same = JSON.stringify(before) === JSON.stringify(after);
              kube.io.stdout(`${nameOf(after)} patched${same ? " (no change)" : ""}\n`);
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
  const patch = f.string("patch", "p", "", "The patch to be applied to the resource JSON file.");
  const type = f.string("type", "", "strategic", "The type of patch being provided; one of [json merge strategic]");
  const output = f.string("output", "o", "", "Output format.");
  return cmd;
}
