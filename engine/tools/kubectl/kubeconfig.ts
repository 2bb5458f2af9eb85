// kubeconfig loading as client-go's clientcmd does it for kubectl: $KUBECONFIG (a path list whose files
// merge, the first file to set a map entry or current-context winning) or ~/.kube/config; the context from
// --context or current-context; cluster and user from the context unless --cluster/--user override them;
// -s/--server, --token, --insecure-skip-tls-verify override the file. With no usable config kubectl talks
// to http://localhost:8080, as client-go's defaults do.

import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";
import type { JsonValue } from "../../kube/api/object.ts";

/** KubeconfigFile is the parsed v1 Config (the fields kubectl's connection needs, the rest kept as JSON). */
export interface KubeconfigFile {
  clusters: { name: string; cluster: Record<string, JsonValue> }[];
  users: { name: string; user: Record<string, JsonValue> }[];
  contexts: { name: string; context: Record<string, JsonValue> }[];
  "current-context": string;
  preferences: Record<string, JsonValue>;
  /** where each named entry came from (relative file paths resolve against it). */
  origin: Map<string, string>;
}

/** ConnectionOverrides are the global flags that change the connection. */
export interface ConnectionOverrides {
  kubeconfig: string;
  context: string;
  cluster: string;
  user: string;
  namespace: string;
  server: string;
  token: string;
  insecureSkipTlsVerify: boolean;
  certificateAuthority: string;
  clientCertificate: string;
  clientKey: string;
}

/** RestConfig is what the REST client needs (client-go's rest.Config, trimmed). */
export interface RestConfig {
  /** server is the base URL, e.g. http://127.0.0.1:6443. */
  server: string;
  namespace: string;
  /** explicitNamespace is true when -n was given (kubectl then enforces it against -f objects). */
  explicitNamespace: boolean;
  token?: string;
  insecure: boolean;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  username?: string;
  password?: string;
}

/** KubeconfigError is a configuration problem, printed as kubectl prints it. */
export class KubeconfigError extends Error {
  override name = "KubeconfigError";
}

/** kubeconfigPaths lists the files kubectl reads. */
export function kubeconfigPaths(env: (k: string) => string, flag: string): string[] {
  if (flag !== "") return [flag];
  const list = env("KUBECONFIG");
  if (list !== "") return list.split(delimiter).filter((p) => p !== "");
  const home = env("HOME");
  return [join(home, ".kube", "config")];
}

/** loadKubeconfig reads and merges the kubeconfig files (missing files are skipped, as client-go does). */
export function loadKubeconfig(paths: string[], explicit: boolean): KubeconfigFile {
  const merged: KubeconfigFile = {
    clusters: [],
    users: [],
    contexts: [],
    "current-context": "",
    preferences: {},
    origin: new Map(),
  };
  for (const p of paths) {
    if (!existsSync(p)) {
      if (explicit) throw new KubeconfigError(`stat ${p}: no such file or directory`);
      continue;
    }
    const text = readFileSync(p, "utf8");
    let doc: unknown;
    try {
      doc = parse(text) ?? {};
    } catch (e) {
      throw new KubeconfigError(`error loading config file "${p}": ${(e as Error).message}`);
    }
    const d = doc as Record<string, unknown>;
    const add = <T extends { name: string }>(list: T[], items: unknown, kind: string) => {
      if (!Array.isArray(items)) return;
      for (const it of items as T[]) {
        if (typeof it?.name !== "string" || list.some((x) => x.name === it.name)) continue;
        list.push(it);
        merged.origin.set(`${kind}/${it.name}`, p);
      }
    };
    add(merged.clusters, d["clusters"], "cluster");
    add(merged.users, d["users"], "user");
    add(merged.contexts, d["contexts"], "context");
    if (merged["current-context"] === "" && typeof d["current-context"] === "string") {
      merged["current-context"] = d["current-context"];
    }
  }
  return merged;
}

function fileOrData(
  entry: Record<string, JsonValue>,
  fileKey: string,
  dataKey: string,
  base: string,
): Buffer | undefined {
  const data = entry[dataKey];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64");
  const file = entry[fileKey];
  if (typeof file === "string" && file !== "") {
    return readFileSync(isAbsolute(file) ? file : join(dirname(base), file));
  }
  return undefined;
}

/** restConfig resolves the connection kubectl will use. */
export function restConfig(cfg: KubeconfigFile, o: ConnectionOverrides): RestConfig {
  const ctxName = o.context !== "" ? o.context : cfg["current-context"];
  const ctx = cfg.contexts.find((c) => c.name === ctxName)?.context;
  if (o.context !== "" && !ctx) throw new KubeconfigError(`context was not found for specified context: ${o.context}`);
  const clusterName = o.cluster !== "" ? o.cluster : String(ctx?.["cluster"] ?? "");
  const userName = o.user !== "" ? o.user : String(ctx?.["user"] ?? "");
  const cluster = cfg.clusters.find((c) => c.name === clusterName)?.cluster ?? {};
  if (o.cluster !== "" && !cfg.clusters.some((c) => c.name === o.cluster)) {
    throw new KubeconfigError(`cluster "${o.cluster}" does not exist`);
  }
  const user = cfg.users.find((u) => u.name === userName)?.user ?? {};
  const clusterOrigin = cfg.origin.get(`cluster/${clusterName}`) ?? "";
  const userOrigin = cfg.origin.get(`user/${userName}`) ?? "";
  let server = o.server !== "" ? o.server : String(cluster["server"] ?? "");
  if (server === "") server = "http://localhost:8080";
  if (!/^[a-z]+:\/\//.test(server)) server = `https://${server}`;
  const ns = o.namespace !== "" ? o.namespace : String(ctx?.["namespace"] ?? "") || "default";
  const tokenFile = user["tokenFile"];
  let token = o.token !== "" ? o.token : typeof user["token"] === "string" ? user["token"] : undefined;
  if (token === undefined && typeof tokenFile === "string" && tokenFile !== "") {
    token = readFileSync(tokenFile, "utf8").trim();
  }
  const rc: RestConfig = {
    server: server.replace(/\/+$/, ""),
    namespace: ns,
    explicitNamespace: o.namespace !== "",
    insecure: o.insecureSkipTlsVerify || cluster["insecure-skip-tls-verify"] === true,
  };
  if (token !== undefined && token !== "") rc.token = token;
  const ca =
    o.certificateAuthority !== ""
      ? readFileSync(o.certificateAuthority)
      : fileOrData(cluster, "certificate-authority", "certificate-authority-data", clusterOrigin);
  if (ca) rc.ca = ca;
  const cert =
    o.clientCertificate !== ""
      ? readFileSync(o.clientCertificate)
      : fileOrData(user, "client-certificate", "client-certificate-data", userOrigin);
  if (cert) rc.cert = cert;
  const key =
    o.clientKey !== "" ? readFileSync(o.clientKey) : fileOrData(user, "client-key", "client-key-data", userOrigin);
  if (key) rc.key = key;
  if (typeof user["username"] === "string") rc.username = user["username"];
  if (typeof user["password"] === "string") rc.password = user["password"];
  return rc;
}
