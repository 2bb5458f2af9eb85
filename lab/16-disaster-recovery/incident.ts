// Lab 16's incident, as setup plays it on a fresh session: the workloads (demo, payments, a config-syncer's
// ConfigMaps, a token Secret), the snapshot at T0 handed over age-encrypted under ~/incident with the drill
// identity in ~/keys, then what went wrong after T0 — namespace payments deleted, the ConfigMaps overwritten by
// a bad operator, Deployment demo/late created, the Secret deleted (a revocation). It records what the checks
// compare against as params (SNAPSHOT, SNAPSHOT_REV, CLUSTER_ID, OLD_RV, SNAPSHOT_SHA256).
import type { SetupContext } from "../lab-format.ts";

/** syncerPrefix names the ConfigMaps the bad operator (config-syncer) owns in namespace demo. */
export const syncerPrefix = "syncer-";
/** overwritten is the value the bad operator wrote into every one of its ConfigMaps after T0. */
export const overwritten = "reset-by-config-syncer-v2.0.0-rc1";

/** syncerName is the i-th ConfigMap of the config-syncer: syncer-001 ... */
export function syncerName(i: number): string {
  return `${syncerPrefix}${String(i).padStart(3, "0")}`;
}

/** syncerValue is what ConfigMap i held at T0 (from the session's TOKEN): <token>-<i>. */
export function syncerValue(token: string, i: number): string {
  return `${token}-${i}`;
}

type Kube = NonNullable<SetupContext["kube"]>;

const namespace = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });

function deployment(ns: string, name: string, replicas: number) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: "nginx:1.27" }] },
      },
    },
  };
}

function configMap(ns: string, name: string, data: Record<string, string>) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns }, data };
}

function secret(ns: string, name: string, data: Record<string, string>) {
  return { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: ns }, type: "Opaque", stringData: data };
}

/** waitForPods waits until `count` pods of app `app` in `ns` run on a node (the simulated kubelets started them). */
async function waitForPods(kube: Kube, ns: string, app: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pods = await kube.list("pods", ns, { labelSelector: `app=${app}` });
    const running = pods.items.filter((p) => {
      const spec = p["spec"] as { nodeName?: string } | undefined;
      const status = p["status"] as { phase?: string } | undefined;
      return spec?.nodeName && status?.phase === "Running";
    });
    if (running.length >= count) return;
    if (Date.now() > deadline) throw new Error(`setup: ${ns}/${app} has ${running.length} of ${count} pods running`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** run runs one setup command and returns its stdout, or throws with its stderr. */
async function run(ctx: SetupContext, command: string): Promise<string> {
  const r = await ctx.run(command);
  if (r.code !== 0) throw new Error(`setup: ${command.split("\n")[0]} failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** playIncident builds the workloads, takes and hands over the T0 snapshot, then plays what went wrong after it. */
export async function playIncident(ctx: SetupContext): Promise<void> {
  const kube = ctx.kube;
  if (!kube) throw new Error("lab 16 needs the control plane");
  const token = ctx.params["TOKEN"] ?? "";
  const count = Number(ctx.params["CONFIGMAPS"]);
  const leaked = ctx.params["SECRET"] ?? "";

  for (const ns of ["demo", "payments"]) await kube.create("namespaces", "", namespace(ns));
  await kube.create("configmaps", "demo", configMap("demo", "hello-config", { greeting: "hello from T0" }));
  await kube.create("secrets", "demo", secret("demo", leaked, { token: `glpat-${token}` }));
  await kube.create("configmaps", "payments", configMap("payments", "gateway", { url: "https://pay.example" }));
  await kube.create("secrets", "payments", secret("payments", "db-credentials", { password: token }));
  await Promise.all(
    Array.from({ length: count }, (_, k) =>
      kube.create("configmaps", "demo", configMap("demo", syncerName(k + 1), { value: syncerValue(token, k + 1) })),
    ),
  );
  await kube.create("deployments", "demo", deployment("demo", "hello", 2));
  await kube.create("deployments", "payments", deployment("payments", "api", 2));
  await waitForPods(kube, "demo", "hello", 2);
  await waitForPods(kube, "payments", "api", 2);

  // T0: the nightly snapshot from one member, encrypted to the drill identity; the plaintext does not stay.
  const out = await run(
    ctx,
    [
      "set -e; umask 077; mkdir -p ~/incident ~/keys ~/answers ~/restore",
      "age-keygen -o ~/keys/drill.agekey 2>/dev/null",
      't=$(mktemp -d "$HOME/.t0.XXXXXX"); ts=$(date -u +%Y%m%dT%H%M%SZ)',
      `ETCDCTL_ENDPOINTS=${ctx.endpoints[0]} etcdctl snapshot save "$t/etcd.db" >/dev/null 2>&1`,
      'etcdutl snapshot status "$t/etcd.db" -w json | tr -d "\\n"; echo',
      'sha256sum "$t/etcd.db" | cut -d" " -f1',
      'age -r "$(age-keygen -y ~/keys/drill.agekey)" -o ~/incident/etcd-$ts.db.age "$t/etcd.db"',
      'rm -rf "$t"; echo "$HOME/incident/etcd-$ts.db.age"',
      `ETCDCTL_ENDPOINTS=${ctx.endpoints[0]} etcdctl endpoint status -w fields | sed -n 's/^"ClusterID" : //p'`,
    ].join("\n"),
  );
  const [status = "{}", sha = "", file = "", clusterId = "0"] = out.split("\n").filter((l) => l.trim() !== "");
  ctx.setParam("SNAPSHOT", file.replace(/^.*\/incident\//, "~/incident/"));
  ctx.setParam("SNAPSHOT_REV", String((JSON.parse(status) as { revision?: number }).revision ?? 0));
  ctx.setParam("SNAPSHOT_SHA256", sha);
  ctx.setParam("CLUSTER_ID", BigInt(clusterId.trim()).toString(16));

  // After T0: the incident.
  await kube.delete("namespaces", "", "payments");
  await Promise.all(
    Array.from({ length: count }, (_, k) =>
      kube.patch("configmaps", "demo", syncerName(k + 1), { data: { value: overwritten } }),
    ),
  );
  await kube.create("deployments", "demo", deployment("demo", "late", 2));
  await waitForPods(kube, "demo", "late", 2);
  await kube.delete("secrets", "demo", leaked);
  // The newest resourceVersion a client (an informer on demo's ConfigMaps) has seen before the restore.
  ctx.setParam("OLD_RV", (await kube.list("configmaps", "demo")).metadata.resourceVersion);
}
