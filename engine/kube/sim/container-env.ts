// A container's environment as the kubelet builds it before it starts the container: envFrom (ConfigMaps and
// Secrets, with a prefix) first, then env (value, valueFrom secretKeyRef / configMapKeyRef / fieldRef), each
// value expanding $(VAR) references to variables defined before it ($$ escapes a $), and the same expansion
// in command and args. A missing Secret, ConfigMap or key is the kubelet's CreateContainerConfigError with its
// text; the container waits and the kubelet tries again on its next sync.
import type { KubeClient } from "../api/client.ts";
import type { KubeObject } from "../api/object.ts";

/** ConfigError is why a container cannot start: CreateContainerConfigError's message. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: KeyRef;
    configMapKeyRef?: KeyRef;
    fieldRef?: { fieldPath?: string };
  };
}

interface EnvFrom {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

/** ContainerEnvSpec is the part of a Container the environment comes from. */
export interface ContainerEnvSpec {
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  command?: string[];
  args?: string[];
}

/** expand replaces $(VAR) with its value when VAR is defined; $$ is a literal $; anything else stays. */
export function expand(s: string, vars: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return name !== undefined && Object.hasOwn(vars, name) ? (vars[name] as string) : m;
  });
}

const envName = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

type Kind = "Secret" | "ConfigMap";

/** ResolvedContainer is a container's environment and its expanded command and args. */
export interface ResolvedContainer {
  env: Record<string, string>;
  command?: string[];
  args?: string[];
}

/** resolveContainerEnv builds `c`'s environment in `pod`, reading Secrets and ConfigMaps through `client`. */
export async function resolveContainerEnv(
  client: KubeClient,
  pod: KubeObject,
  c: ContainerEnvSpec,
): Promise<ResolvedContainer> {
  const ns = pod.metadata.namespace ?? "";
  const cache = new Map<string, Record<string, string> | null>();
  const dataOf = async (kind: Kind, name: string): Promise<Record<string, string> | null> => {
    const k = `${kind}/${name}`;
    if (!cache.has(k)) {
      const obj = await client.get(kind === "Secret" ? "secrets" : "configmaps", ns, name).catch(() => null);
      let data: Record<string, string> | null = null;
      if (obj) {
        data = {};
        const raw = (obj["data"] ?? {}) as Record<string, string>;
        for (const [key, v] of Object.entries(raw))
          data[key] = kind === "Secret" ? Buffer.from(v, "base64").toString("utf8") : v;
        if (kind === "Secret")
          for (const [key, v] of Object.entries((obj["stringData"] ?? {}) as Record<string, string>)) data[key] = v;
      }
      cache.set(k, data);
    }
    return cache.get(k) ?? null;
  };
  const lower = (kind: Kind) => (kind === "Secret" ? "secret" : "configmap");

  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const [kind, ref] = from.secretRef
      ? (["Secret", from.secretRef] as const)
      : from.configMapRef
        ? (["ConfigMap", from.configMapRef] as const)
        : [null, null];
    if (!kind || !ref) continue;
    const data = await dataOf(kind, ref.name ?? "");
    if (!data) {
      if (ref.optional) continue;
      throw new ConfigError(`${lower(kind)} "${ref.name ?? ""}" not found`);
    }
    for (const [k, v] of Object.entries(data)) {
      const name = `${from.prefix ?? ""}${k}`;
      if (envName.test(name)) env[name] = v;
    }
  }
  for (const e of c.env ?? []) {
    const vf = e.valueFrom;
    if (!vf) {
      env[e.name] = expand(e.value ?? "", env);
      continue;
    }
    const keyRef = vf.secretKeyRef ?? vf.configMapKeyRef;
    if (keyRef) {
      const kind: Kind = vf.secretKeyRef ? "Secret" : "ConfigMap";
      const data = await dataOf(kind, keyRef.name ?? "");
      if (!data) {
        if (keyRef.optional) continue;
        throw new ConfigError(`${lower(kind)} "${keyRef.name ?? ""}" not found`);
      }
      const v = data[keyRef.key ?? ""];
      if (v === undefined) {
        if (keyRef.optional) continue;
        throw new ConfigError(`couldn't find key ${keyRef.key ?? ""} in ${kind} ${ns}/${keyRef.name ?? ""}`);
      }
      env[e.name] = v;
      continue;
    }
    if (vf.fieldRef) env[e.name] = fieldValue(pod, vf.fieldRef.fieldPath ?? "");
  }
  return {
    env,
    ...(c.command ? { command: c.command.map((s) => expand(s, env)) } : {}),
    ...(c.args ? { args: c.args.map((s) => expand(s, env)) } : {}),
  };
}

/** fieldValue is a downward-API field of the pod. */
function fieldValue(pod: KubeObject, path: string): string {
  const spec = (pod["spec"] ?? {}) as { nodeName?: string; serviceAccountName?: string };
  const status = (pod["status"] ?? {}) as { hostIP?: string; podIP?: string };
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (label) {
    const map = label[1] === "labels" ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[label[2] ?? ""] ?? "";
  }
  switch (path) {
    case "metadata.name":
      return pod.metadata.name ?? "";
    case "metadata.namespace":
      return pod.metadata.namespace ?? "";
    case "metadata.uid":
      return pod.metadata.uid ?? "";
    case "spec.nodeName":
      return spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return spec.serviceAccountName ?? "";
    case "status.hostIP":
      return status.hostIP ?? "";
    case "status.podIP":
      return status.podIP ?? "";
    default:
      return "";
  }
}
