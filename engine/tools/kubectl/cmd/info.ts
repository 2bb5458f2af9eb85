// The informational commands: `kubectl version` (client, kustomize and server versions, -o json|yaml),
// `kubectl api-resources` (discovery as kubectl's table), `kubectl config view|current-context|use-context`
// (the kubeconfig with secrets redacted as kubectl redacts them) and `kubectl logs` (the pod's log
// subresource, streamed with -f; the default container chosen and announced as kubectl does).

import { writeFileSync } from "node:fs";
import { parse } from "yaml";
import { readFileSync } from "node:fs";
import { Command } from "../../cobra/command.ts";
import { ApiError } from "../../../kube/api/client.ts";
import type { JsonValue, KubeObject } from "../../../kube/api/object.ts";
import type { Kube } from "../ctx.ts";
import type { ApiResource } from "../discovery.ts";
import { groupVersion, qualifiedKind, resourcePath } from "../discovery.ts";
import { KubectlError } from "../errors.ts";
import { marshalJson } from "../printers/json.ts";
import { TableWriter } from "../printers/table.ts";
import { marshalYaml } from "../printers/yaml.ts";
import { listAll } from "../resources.ts";
import { responseError } from "../rest.ts";
import { seeHelp } from "./common.ts";

/** clientVersion is our kubectl's version.Info: v1.32.4's, marked as the etcd-lab build. */
export const clientVersion = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.4-etcd-lab",
  gitCommit: "59526cd4867447956156ae3a602fcbac10a2c335",
  gitTreeState: "clean",
  buildDate: "2025-04-22T16:03:33Z",
  goVersion: "go1.23.6",
  compiler: "gc",
  platform: "linux/amd64",
};
const kustomizeVersion = "v5.5.0";

/** newVersionCommand builds `kubectl version`. */
export function newVersionCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "version",
    short: "Print the client and server version information",
    run: async () => {
      if (output() !== "" && output() !== "yaml" && output() !== "json") {
        throw new KubectlError("--output must be 'yaml' or 'json'");
      }
      let server: Record<string, string> | undefined;
      let err: unknown;
      if (!client()) {
        try {
          server = await kube.client().json<Record<string, string>>("/version", { timeoutParam: "32s" });
        } catch (e) {
          err = e;
        }
      }
      if (output() === "") {
        kube.io.stdout(`Client Version: ${clientVersion.gitVersion}\nKustomize Version: ${kustomizeVersion}\n`);
        if (server) {
          kube.io.stdout(`Server Version: ${server["gitVersion"]}\n`);
          const minor = Number.parseInt(server["minor"] ?? "", 10);
          if (server["major"] === "1" && Math.abs(minor - 32) > 1) {
            kube.io.stderr(
              `WARNING: version difference between client (1.32) and server (1.${minor}) exceeds the supported minor version skew of +/-1\n`,
            );
          }
        }
      } else {
        const v: Record<string, unknown> = { clientVersion, kustomizeVersion };
        if (server) v["serverVersion"] = server;
        kube.io.stdout(
          output() === "json" ? `${marshalJson(v as JsonValue, "  ", false)}\n` : marshalYaml(v as JsonValue),
        );
      }
      if (err !== undefined) throw err;
    },
  });
  const f = cmd.flags();
  const client = f.bool("client", "", false, "If true, shows client version only (no server required).");
  const output = f.string("output", "o", "", "One of 'yaml' or 'json'.");
  return cmd;
}

/** newApiResourcesCommand builds `kubectl api-resources`. */
export function newApiResourcesCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "api-resources",
    short: "Print the supported API resources on the server",
    run: async () => {
      const all = await kube.discovery().all();
      const seen = new Set<string>();
      const rows = all.filter((r) => {
        const k = `${r.group}/${r.name}`;
        if (seen.has(k)) return false;
        seen.add(k);
        if (namespaced() !== undefined && r.namespaced !== namespaced()) return false;
        return true;
      });
      rows.sort((a, b) =>
        a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
      if (output() === "name") {
        kube.io.stdout(rows.map((r) => `${r.group === "" ? r.name : `${r.name}.${r.group}`}\n`).join(""));
        return;
      }
      const tw = new TableWriter();
      const wide = output() === "wide";
      const head = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"];
      if (wide) head.push("VERBS", "CATEGORIES");
      if (!noHeaders()) tw.row(head);
      for (const r of rows) {
        const row = [r.name, r.shortNames.join(","), groupVersion(r), String(r.namespaced), r.kind];
        if (wide) row.push([...r.verbs].sort().join(","), r.categories.join(","));
        tw.row(row);
      }
      kube.io.stdout(tw.flush());
    },
  });
  const f = cmd.flags();
  const output = f.string("output", "o", "", "Output format. One of: (wide, name).");
  const noHeaders = f.bool(
    "no-headers",
    "",
    false,
    "When using the default or custom-column output format, don't print headers (default print headers).",
  );
  const ns = f.bool(
    "namespaced",
    "",
    true,
    "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.",
  );
  const namespaced = () => (cmd.flags().lookup("namespaced")?.changed ? ns() : undefined);
  return cmd;
}

type Doc = Record<string, JsonValue>;

function redact(doc: Doc): Doc {
  const users = (doc["users"] as Doc[] | null | undefined) ?? null;
  const clusters = (doc["clusters"] as Doc[] | null | undefined) ?? null;
  const scrub = (m: Doc | undefined, keys: Record<string, string>) => {
    if (!m) return;
    for (const [k, v] of Object.entries(keys)) if (typeof m[k] === "string" && m[k] !== "") m[k] = v;
  };
  for (const c of clusters ?? []) scrub(c["cluster"] as Doc, { "certificate-authority-data": "DATA+OMITTED" });
  for (const u of users ?? []) {
    scrub(u["user"] as Doc, {
      "client-certificate-data": "DATA+OMITTED",
      "client-key-data": "DATA+OMITTED",
      token: "REDACTED",
      password: "REDACTED",
    });
  }
  return doc;
}

/** newConfigCommand builds `kubectl config` with view, current-context and use-context. */
export function newConfigCommand(kube: Kube): Command {
  const cmd = new Command({ use: "config SUBCOMMAND", short: "Modify kubeconfig files" });
  const view = new Command({
    use: "view",
    short: "Display merged kubeconfig settings or a specified kubeconfig file",
    run: () => {
      const cfg = kube.kubeconfig();
      const list = <T>(l: T[]) => (l.length === 0 ? null : l);
      let doc: Doc = {
        apiVersion: "v1",
        clusters: list(cfg.clusters) as JsonValue,
        contexts: list(cfg.contexts) as JsonValue,
        "current-context": cfg["current-context"],
        kind: "Config",
        preferences: {},
        users: list(cfg.users) as JsonValue,
      };
      doc = JSON.parse(JSON.stringify(doc)) as Doc;
      if (!raw()) doc = redact(doc);
      kube.io.stdout(output() === "json" ? `${marshalJson(doc, "    ")}\n` : marshalYaml(doc));
    },
  });
  view.flags().string("output", "o", "yaml", "Output format.");
  const output = () => view.flags().getString("output");
  const raw = view.flags().bool("raw", "", false, "Display raw byte data and sensitive data");
  view.flags().bool("minify", "", false, "Remove all information not used by current-context from the output");
  const current = new Command({
    use: "current-context",
    short: "Display the current-context",
    run: () => {
      const c = kube.kubeconfig()["current-context"];
      if (c === "") throw new KubectlError("current-context is not set");
      kube.io.stdout(`${c}\n`);
    },
  });
  const use = new Command({
    use: "use-context CONTEXT_NAME",
    short: "Set the current-context in a kubeconfig file",
    run: (_c, args) => {
      if (args.length !== 1)
        throw new KubectlError(`Unexpected args: [${args.join(" ")}]\n${seeHelp("kubectl config use-context")}`);
      const name = args[0] as string;
      if (!kube.kubeconfig().contexts.some((c) => c.name === name)) {
        throw new KubectlError(`no context exists with the name: "${name}"`);
      }
      const path = kube.kubeconfigPath();
      const doc = (parse(readFileSync(path, "utf8")) ?? {}) as Doc;
      doc["current-context"] = name;
      writeFileSync(path, marshalYaml(doc));
      kube.io.stdout(`Switched to context "${name}".\n`);
    },
  });
  cmd.addCommand(view, current, use);
  return cmd;
}

/**
 * firstPodOf is kubectl's LogsForObject for a controller (job/x, deployment/x, ...): the pods its selector
 * matches, the best one for logs first (scheduled, running, ready, oldest), announced when there are several.
 */
async function firstPodOf(kube: Kube, r: ApiResource, name: string): Promise<string> {
  const owner = await kube
    .client()
    .json<KubeObject>(resourcePath(r, kube.namespace(), name))
    .catch((e: unknown) => {
      // The builder's NotFound for an object named on the command line, as kubectl words it.
      if (e instanceof ApiError && e.code === 404) {
        throw new KubectlError(`error from server (NotFound): ${e.message} in namespace "${kube.namespace()}"`);
      }
      throw e;
    });
  const spec = (owner["spec"] ?? {}) as Doc;
  const labels = ((spec["selector"] as Doc | undefined)?.["matchLabels"] ?? {}) as Record<string, string>;
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  if (selector === "")
    throw new KubectlError(`cannot get the logs from ${qualifiedKind(r)}: selector for ${qualifiedKind(r)} is empty`);
  const pods =
    (
      await listAll<{ items?: KubeObject[] }>(kube, `/api/v1/namespaces/${kube.namespace()}/pods`, {
        labelSelector: selector,
        allNamespaces: false,
      })
    ).items ?? [];
  if (pods.length === 0) throw new KubectlError("timed out waiting for the condition");
  const rank = (p: KubeObject) => {
    const st = (p["status"] ?? {}) as Doc;
    const sp = (p["spec"] ?? {}) as Doc;
    const phase = { Running: 0, Unknown: 1, Pending: 2 }[String(st["phase"] ?? "")] ?? 3;
    const ready = ((st["conditions"] ?? []) as Doc[]).some((c) => c["type"] === "Ready" && c["status"] === "True");
    return [sp["nodeName"] ? 0 : 1, phase, ready ? 0 : 1];
  };
  pods.sort((a, b) => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return String(a.metadata.creationTimestamp ?? "").localeCompare(String(b.metadata.creationTimestamp ?? ""));
  });
  const pod = pods[0] as KubeObject;
  if (pods.length > 1) kube.io.stderr(`Found ${pods.length} pods, using pod/${pod.metadata.name ?? ""}\n`);
  return pod.metadata.name ?? "";
}

/** newLogsCommand builds `kubectl logs`. */
export function newLogsCommand(kube: Kube): Command {
  const cmd = new Command({
    use: "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]",
    short: "Print the logs for a container in a pod",
    run: async (_c, args) => {
      if (args.length === 0 || args.length > 2) {
        throw new KubectlError(
          `expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\n${seeHelp("kubectl logs")}`,
        );
      }
      let podName = args[0] as string;
      if (podName.includes("/")) {
        const [t, n] = podName.split("/") as [string, string];
        const [r] = await kube.discovery().find(t);
        if (r && r.kind === "Pod") podName = n;
        else if (r) podName = await firstPodOf(kube, r, n);
      }
      let c = container();
      if (c === "" && args.length === 2) c = args[1] as string;
      const podsPath = resourcePath(
        { group: "", version: "v1", name: "pods", namespaced: true } as never,
        kube.namespace(),
        podName,
      );
      const pod = await kube
        .client()
        .json<KubeObject>(podsPath)
        .catch((e: unknown) => {
          if (e instanceof ApiError && e.code === 404) {
            throw new KubectlError(`error from server (NotFound): ${e.message} in namespace "${kube.namespace()}"`);
          }
          throw e;
        });
      const containers = (((pod["spec"] as Doc | undefined)?.["containers"] ?? []) as Doc[]).map((x) =>
        String(x["name"]),
      );
      if (c === "") {
        const annotated = pod.metadata.annotations?.["kubectl.kubernetes.io/default-container"];
        c = annotated ?? containers[0] ?? "";
        if (annotated === undefined && containers.length > 1) {
          kube.io.stderr(`Defaulted container "${c}" out of: ${containers.join(", ")}\n`);
        }
      }
      const query: Record<string, string | undefined> = { container: c };
      if (follow()) query["follow"] = "true";
      if (previous()) query["previous"] = "true";
      if (tail() >= 0) query["tailLines"] = String(tail());
      if (timestamps()) query["timestamps"] = "true";
      const { res, url } = await kube
        .client()
        .open(`${podsPath}/log`, { query, ...(follow() ? { timeoutMs: 0 } : {}) });
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        const chunks: Buffer[] = [];
        for await (const ch of res) chunks.push(ch as Buffer);
        throw responseError(status, Buffer.concat(chunks), "GET", url);
      }
      for await (const ch of res) kube.io.stdout(ch as Buffer);
    },
  });
  const f = cmd.flags();
  const container = f.string("container", "c", "", "Print the logs of this container");
  const follow = f.bool("follow", "f", false, "Specify if the logs should be streamed.");
  const previous = f.bool(
    "previous",
    "p",
    false,
    "If true, print the logs for the previous instance of the container in a pod if it exists.",
  );
  const tail = f.int("tail", "", -1, "Lines of recent log file to display.");
  const timestamps = f.bool("timestamps", "", false, "Include timestamps on each line in the log output");
  return cmd;
}
