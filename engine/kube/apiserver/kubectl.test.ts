// Real kubectl (/usr/bin/kubectl v1.32) against the simulated apiserver: discovery, server-side tables,
// get -o yaml, create, client-side apply (create, strategic merge patch, unchanged), patch --type merge,
// a 409 from a stale replace, delete, a raw watch, errors, and connection refused once the apiserver stops.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ApiServer } from "./apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "./testdata/etcd-cluster.ts";

const kubectlPath = "/usr/bin/kubectl";
const haveKubectl = existsSync(kubectlPath);
if (!haveKubectl) console.warn(`\n!!! SKIPPING the real-kubectl tests: ${kubectlPath} is missing\n`);

let cluster: TestCluster;
let server: ApiServer;
let home: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const env = () => ({ HOME: home, KUBECONFIG: join(home, "kubeconfig"), PATH: "/usr/bin:/bin" });

function kubectl(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(kubectlPath, args, { env: env(), timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!haveKubectl || !etcdAvailable())("real kubectl against the apiserver", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "kubectl-home-"));
    cluster = await startCluster(1);
    server = await ApiServer.start({ etcd: cluster.client, compactionIntervalMs: 0 });
    writeFileSync(
      join(home, "kubeconfig"),
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        `- cluster: {server: "${server.url}"}`,
        "  name: lab",
        "contexts:",
        "- context: {cluster: lab, user: lab}",
        "  name: lab",
        "current-context: lab",
        "users:",
        "- name: lab",
        "  user: {}",
        "",
      ].join("\n"),
    );
    const k = server.client();
    for (const ns of ["default", "kube-system"])
      await k.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    await k.create("nodes", "", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "cp-1", labels: { "node-role.kubernetes.io/control-plane": "" } },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "10.0.0.10" }],
        nodeInfo: {
          kubeletVersion: "v1.31.4",
          osImage: "Debian GNU/Linux 12 (bookworm)",
          kernelVersion: "6.1.0-28-amd64",
          containerRuntimeVersion: "containerd://1.7.24",
        },
      },
    });
    await k.create("pods", "kube-system", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "etcd-cp-1", labels: { component: "etcd" } },
      spec: { nodeName: "cp-1", containers: [{ name: "etcd", image: "registry.k8s.io/etcd:3.5.16-0" }] },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("get pods -A and get nodes -o wide print the server's tables", async () => {
    const pods = await kubectl("get", "pods", "-A");
    expect(pods.stderr).toBe("");
    expect(pods.stdout).toMatch(
      /^NAMESPACE {5}NAME {8}READY {3}STATUS {4}RESTARTS {3}AGE\nkube-system {3}etcd-cp-1 {3}0\/1 {5}Pending {3}0 {10}\d+s\n$/,
    );
    const nodes = await kubectl("get", "nodes", "-o", "wide");
    const [head, row] = nodes.stdout.trimEnd().split("\n");
    expect(head!.split(/\s{2,}/)).toEqual([
      "NAME",
      "STATUS",
      "ROLES",
      "AGE",
      "VERSION",
      "INTERNAL-IP",
      "EXTERNAL-IP",
      "OS-IMAGE",
      "KERNEL-VERSION",
      "CONTAINER-RUNTIME",
    ]);
    expect(row!.split(/\s{2,}/)).toEqual([
      "cp-1",
      "Ready",
      "control-plane",
      expect.stringMatching(/^\d+s$/),
      "v1.31.4",
      "10.0.0.10",
      "<none>",
      "Debian GNU/Linux 12 (bookworm)",
      "6.1.0-28-amd64",
      "containerd://1.7.24",
    ]);
  });

  it("get pod -o yaml shows the defaulted, stored object with resourceVersion = mod_revision", async () => {
    const out = await kubectl("get", "pod", "etcd-cp-1", "-n", "kube-system", "-o", "yaml");
    const pod = parseYaml(out.stdout) as {
      metadata: { resourceVersion: string; uid: string };
      spec: Record<string, unknown>;
      status: Record<string, unknown>;
    };
    const kv = (await cluster.client.get("/registry/pods/kube-system/etcd-cp-1")).kvs[0]!;
    expect(pod.metadata.resourceVersion).toBe(String(kv.modRevision));
    expect(pod.spec).toMatchObject({
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      terminationGracePeriodSeconds: 30,
      serviceAccountName: "default",
    });
    expect(pod.status).toEqual({ phase: "Pending", qosClass: "BestEffort" });
  });

  it("create configmap, apply -f (created, configured, unchanged), patch --type merge, delete", async () => {
    expect((await kubectl("create", "configmap", "cfg", "--from-literal=a=1")).stdout).toBe("configmap/cfg created\n");
    const file = join(home, "deploy.yaml");
    const manifest = (replicas: number, value: string) =>
      [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: web}",
        "spec:",
        `  replicas: ${replicas}`,
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec:",
        "      containers:",
        "      - name: nginx",
        "        image: nginx:1.27",
        `        env: [{name: A, value: "${value}"}]`,
        "",
      ].join("\n");
    writeFileSync(file, manifest(2, "1"));
    expect((await kubectl("apply", "-f", file)).stdout).toBe("deployment.apps/web created\n");
    writeFileSync(file, manifest(3, "2"));
    expect((await kubectl("apply", "-f", file)).stdout).toBe("deployment.apps/web configured\n");
    expect((await kubectl("apply", "-f", file)).stdout).toBe("deployment.apps/web unchanged\n");
    const got = await kubectl(
      "get",
      "deploy",
      "web",
      "-o",
      "jsonpath={.spec.replicas} {.metadata.generation} {.spec.template.spec.containers[0].env[0].value}",
    );
    expect(got.stdout).toBe("3 2 2");
    const patched = await kubectl("patch", "configmap", "cfg", "--type", "merge", "-p", '{"data":{"b":"2"}}');
    expect(patched.stdout).toBe("configmap/cfg patched\n");
    expect((await kubectl("get", "cm", "cfg", "-o", "jsonpath={.data}")).stdout).toBe('{"a":"1","b":"2"}');
    expect((await kubectl("delete", "configmap", "cfg")).stdout).toBe('configmap "cfg" deleted\n');
    const gone = await kubectl("get", "configmap", "cfg");
    expect([gone.code, gone.stderr]).toEqual([1, 'Error from server (NotFound): configmaps "cfg" not found\n']);
  });

  it("a stale resourceVersion on replace is the 409 Conflict", async () => {
    await kubectl("create", "configmap", "stale", "--from-literal=a=1");
    const old = (await kubectl("get", "cm", "stale", "-o", "yaml")).stdout;
    await kubectl("patch", "configmap", "stale", "--type", "merge", "-p", '{"data":{"a":"2"}}');
    const file = join(home, "stale.yaml");
    writeFileSync(file, old);
    const r = await kubectl("replace", "-f", file);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `Error from server (Conflict): error when replacing "${file}": Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again\n`,
    );
  });

  it("get --raw of a watch streams JSON events until timeoutSeconds", async () => {
    const list = await kubectl("get", "--raw", "/api/v1/namespaces/kube-system/pods");
    const rv = (JSON.parse(list.stdout) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watching = kubectl(
      "get",
      "--raw",
      `/api/v1/namespaces/kube-system/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=2`,
    );
    // The watch starts from the list's revision, so the patch reaches it however late kubectl connects.
    await server
      .client()
      .patch("pods", "kube-system", "etcd-cp-1", { metadata: { labels: { tier: "control-plane" } } });
    const out = await watching;
    const events = out.stdout
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as { type: string; object: { metadata: { name: string; labels: Record<string, string> } } },
      );
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels["tier"]])).toEqual([
      ["MODIFIED", "etcd-cp-1", "control-plane"],
    ]);
  });

  it("get -w prints the table, then one row per change", async () => {
    const child = spawn(kubectlPath, ["get", "pods", "-n", "kube-system", "-w"], { env: env() });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    try {
      await until("kubectl's watch", () => server.openWatches === 1);
      await server.client().patch("pods", "kube-system", "etcd-cp-1", { metadata: { labels: { seen: "yes" } } });
      await until("the watch row", () => out.trimEnd().split("\n").length >= 3);
    } finally {
      child.kill();
    }
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME {8}READY {3}STATUS {4}RESTARTS {3}AGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ["etcd-cp-1", "0/1", "Pending", "0"],
      ["etcd-cp-1", "0/1", "Pending", "0"],
    ]);
  });

  it("errors: unknown resource type, unknown path, and connection refused while the apiserver is down", async () => {
    const unknown = await kubectl("get", "widgets");
    expect(unknown.stderr).toBe('error: the server doesn\'t have a resource type "widgets"\n');
    const raw = await kubectl("get", "--raw", "/api/v1/widgets");
    expect(raw.stderr).toBe("Error from server (NotFound): the server could not find the requested resource\n");
    await server.stop();
    try {
      const down = await kubectl("get", "pods");
      expect(down.code).toBe(1);
      expect(down.stderr).toContain(
        `The connection to the server 127.0.0.1:${server.port} was refused - did you specify the right host or port?`,
      );
    } finally {
      await server.start();
    }
    expect((await kubectl("get", "ns", "default", "-o", "name")).stdout).toBe("namespace/default\n");
  });
});
