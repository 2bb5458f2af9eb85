// Reading one static pod manifest as the kubelet's file source does (pkg/kubelet/config/file.go): a file that
// does not parse as a Pod is skipped with the kubelet's own error text — "<path>: couldn't parse as pod(<why>),
// please check config file" for bad YAML or a missing apiVersion/kind, "invalid pod: [<field>: Required value]"
// for a Pod without containers — and what does parse gives the container the simulated kubelet runs.
// hostPath volumes map a container path to the master's filesystem (~/masters/<m> in the lab).
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { parse, YAMLParseError } from "yaml";

/** StaticPodMount is one container volumeMount backed by a hostPath volume. */
export interface StaticPodMount {
  mountPath: string;
  hostPath: string;
  readOnly: boolean;
}

/** StaticPod is what the kubelet keeps of a manifest: one pod with its first container. */
export interface StaticPod {
  name: string;
  namespace: string;
  /** uid is the pod's config hash (the kubelet derives a static pod's UID from its manifest's content). */
  uid: string;
  container: {
    name: string;
    image: string;
    /** argv is the container's command followed by its args. */
    argv: string[];
    mounts: StaticPodMount[];
  };
}

/** ManifestResult is a parsed manifest or the kubelet's error for it. */
export type ManifestResult = { ok: true; pod: StaticPod } | { ok: false; error: string };

/** manifestBytesMax is the kubelet's maxConfigLength (10 MiB). */
export const manifestBytesMax = 10 * 1024 * 1024;

/**
 * goYamlMessage renders a YAML syntax error the way sigs.k8s.io/yaml (go-yaml) words it: "yaml: line N: <what>".
 * NB: the yaml package finds the same errors as go-yaml, not always at the same line or with the same words; the
 * common ones (a `key: value` inside a value, bad indentation, tabs) map to go-yaml's wording.
 */
export function goYamlMessage(err: YAMLParseError): string {
  const line = err.linePos?.[0]?.line ?? 1;
  const what: Record<string, string> = {
    BLOCK_AS_IMPLICIT_KEY: "mapping values are not allowed in this context",
    TAB_AS_INDENT: "found character that cannot start any token",
    BAD_INDENT: "did not find expected key",
    MISSING_CHAR: "did not find expected node content",
    MULTILINE_IMPLICIT_KEY: "could not find expected ':'",
    DUPLICATE_KEY: `mapping key already defined`,
  };
  return `yaml: line ${line}: ${what[err.code] ?? "did not find expected key"}`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** parseManifest reads one manifest's text; `path` is the manifest's path as the kubelet names it in errors. */
export function parseManifest(path: string, text: string): ManifestResult {
  const couldNot = (why: string): ManifestResult => ({
    ok: false,
    error: `${path}: couldn't parse as pod(${why}), please check config file`,
  });
  if (Buffer.byteLength(text) > manifestBytesMax) return { ok: false, error: `${path}: file too large` };
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: true });
  } catch (err) {
    if (err instanceof YAMLParseError) return couldNot(goYamlMessage(err));
    throw err;
  }
  const json = JSON.stringify(doc ?? null);
  if (!isObj(doc)) return couldNot(`Object 'Kind' is missing in '${json}'`);
  if (typeof doc["apiVersion"] !== "string" || !doc["apiVersion"])
    return couldNot(`Object 'apiVersion' is missing in '${json}'`);
  if (typeof doc["kind"] !== "string" || !doc["kind"]) return couldNot(`Object 'Kind' is missing in '${json}'`);
  if (doc["kind"] !== "Pod" || doc["apiVersion"] !== "v1") {
    return couldNot(`no kind "${doc["kind"]}" is registered for version "${doc["apiVersion"]}"`);
  }
  const meta = isObj(doc["metadata"]) ? doc["metadata"] : {};
  const spec = isObj(doc["spec"]) ? doc["spec"] : {};
  const containers = Array.isArray(spec["containers"]) ? spec["containers"] : [];
  const first = containers[0];
  if (!isObj(first)) return { ok: false, error: "invalid pod: [spec.containers: Required value]" };
  const strings = (v: unknown, field: string): string[] | string => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v))
      return `json: cannot unmarshal ${typeof v} into Go struct field Container.spec.containers.${field} of type []string`;
    const bad = v.find((x) => typeof x !== "string");
    if (bad !== undefined) {
      const kind = isObj(bad) ? "object" : typeof bad;
      return `json: cannot unmarshal ${kind} into Go struct field Container.spec.containers.${field} of type string`;
    }
    return v as string[];
  };
  const command = strings(first["command"], "command");
  if (typeof command === "string") return couldNot(command);
  const args = strings(first["args"], "args");
  if (typeof args === "string") return couldNot(args);
  const problems: string[] = [];
  const name = typeof meta["name"] === "string" ? meta["name"] : "";
  if (!name) problems.push("metadata.name: Required value: name or generateName is required");
  const cname = typeof first["name"] === "string" ? first["name"] : "";
  if (!cname) problems.push("spec.containers[0].name: Required value");
  const image = typeof first["image"] === "string" ? first["image"] : "";
  if (!image) problems.push("spec.containers[0].image: Required value");
  const volumes = new Map<string, string>();
  for (const v of Array.isArray(spec["volumes"]) ? spec["volumes"] : []) {
    if (isObj(v) && typeof v["name"] === "string" && isObj(v["hostPath"]) && typeof v["hostPath"]["path"] === "string")
      volumes.set(v["name"], v["hostPath"]["path"]);
  }
  const mounts: StaticPodMount[] = [];
  const vm = Array.isArray(first["volumeMounts"]) ? first["volumeMounts"] : [];
  vm.forEach((m, i) => {
    if (!isObj(m)) return;
    const hostPath = typeof m["name"] === "string" ? volumes.get(m["name"]) : undefined;
    if (hostPath === undefined) {
      problems.push(`spec.containers[0].volumeMounts[${i}].name: Not found: ${JSON.stringify(m["name"] ?? "")}`);
      return;
    }
    if (typeof m["mountPath"] !== "string" || !m["mountPath"]) {
      problems.push(`spec.containers[0].volumeMounts[${i}].mountPath: Required value`);
      return;
    }
    mounts.push({ mountPath: m["mountPath"], hostPath, readOnly: m["readOnly"] === true });
  });
  if (problems.length) return { ok: false, error: `invalid pod: [${problems.join(", ")}]` };
  return {
    ok: true,
    pod: {
      name,
      namespace: typeof meta["namespace"] === "string" && meta["namespace"] ? meta["namespace"] : "default",
      uid: createHash("md5").update(text).digest("hex"),
      container: { name: cname, image, argv: [...command, ...args], mounts },
    },
  };
}

/**
 * hostPathOf maps an absolute path inside the container to the master's filesystem: through the mount whose
 * mountPath is the longest prefix of it, else into the container's own root filesystem (`rootfs`, lost when
 * the container is recreated, as a real container's writable layer is). Both results are master paths.
 */
export function hostPathOf(pod: StaticPod, path: string, rootfs: string): string {
  const p = posix.normalize(path);
  let best: StaticPodMount | null = null;
  for (const m of pod.container.mounts) {
    const mp = posix.normalize(m.mountPath).replace(/\/$/, "") || "/";
    if ((p === mp || p.startsWith(mp === "/" ? "/" : `${mp}/`)) && (!best || mp.length > best.mountPath.length))
      best = { ...m, mountPath: mp };
  }
  if (!best) return posix.join(rootfs, p);
  return posix.join(best.hostPath, posix.relative(best.mountPath, p));
}

/**
 * containerArgv maps the path arguments of a container's argv to master paths (hostPathOf): a whole argument
 * that is an absolute path, or the value of `--flag=/abs/path`. `toHost` turns a master path into a real one.
 */
export function containerArgv(pod: StaticPod, rootfs: string, toHost: (masterPath: string) => string): string[] {
  const map = (p: string) => toHost(hostPathOf(pod, p, rootfs));
  return pod.container.argv.slice(1).map((a) => {
    if (a.startsWith("/")) return map(a);
    const m = /^(--?[A-Za-z0-9][\w.-]*=)(\/.*)$/.exec(a);
    return m ? `${m[1]}${map(m[2] as string)}` : a;
  });
}
