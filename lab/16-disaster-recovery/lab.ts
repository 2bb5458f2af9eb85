// Lab 16, "Disaster-recovery drill": setup plays an incident (incident.ts) on a 3-member cluster with the
// simulated control plane; the learner restores every member from the T0 snapshot in the right order, meets the
// clients from the future (410), repeats the revocation the restore undid and restarts the stateful components.
// Checks read the members (Status, HashKV), the keys, the workspace and the event log (drill.ts); never
// keystrokes. The members' answers are read with short timeouts, so a cluster that never forms (members
// restored with different tokens) is reported, not waited for.
import { defineLab, type CheckContext, type CheckResult } from "../lab-format.ts";
import {
  clusterIdsInLogs,
  componentsStartedAfter,
  describeSplit,
  identityVerdict,
  isBackupDir,
  kubeletRestartsAfter,
  orderProblem,
  parseWatch410,
  podsStartedAfter,
  podsStillRunning,
  replacements,
  type DrillEvent,
  type MemberIdentity,
} from "./drill.ts";
import { overwritten, playIncident, syncerName, syncerValue } from "./incident.ts";

/** bump is the --bump-revision the drill asks for. */
export const bump = 1_000_000_000;
/** watchFile and rvFile are task 2's answers. */
export const watchFile = "home/answers/watch-410.json";
export const rvFile = "home/answers/rv-after";

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });
const memberTimeoutMs = 1500;

function num(ctx: CheckContext, name: string): number {
  return Number(ctx.params[name] ?? "0");
}

/** identities asks every member for its Status (cluster ID, leader), each with a short deadline. */
async function identities(ctx: CheckContext): Promise<MemberIdentity[]> {
  const client = ctx.client;
  return Promise.all(
    ctx.endpoints.map(async (ep, i): Promise<MemberIdentity> => {
      const name = `m${i + 1}`;
      if (!client) return { name, clusterId: null, leader: "", error: "no client" };
      try {
        const s = await client.status(ep, { timeoutMs: memberTimeoutMs });
        return { name, clusterId: (s.header?.clusterId ?? 0n).toString(16), leader: s.leader.toString(16) };
      } catch (err) {
        return { name, clusterId: null, leader: "", error: (err as Error).message };
      }
    }),
  );
}

/** restoredCluster says whether the members now form one new cluster, or what is wrong with them. */
async function restoredCluster(ctx: CheckContext): Promise<{ ok: true; clusterId: string } | CheckResult> {
  const before = ctx.params["CLUSTER_ID"] ?? "";
  let v = identityVerdict(await identities(ctx), before);
  if (v.kind === "unreachable" || v.kind === "no-leader") {
    const logs = new Map<string, string>();
    for (const [i] of ctx.endpoints.entries())
      logs.set(`m${i + 1}`, (await ctx.files.read(`logs/m${i + 1}.log`)) ?? "");
    const byCluster = clusterIdsInLogs(logs);
    if (byCluster.size > 1) v = { kind: "split", byCluster };
  }
  switch (v.kind) {
    case "split":
      return fail(
        `The members never formed one cluster: ${describeSplit(v.byCluster)}. Each was restored with its own --initial-cluster-token (the token and the peer URLs make the IDs), so they refuse each other. Stop them and restore all three again with one common token.`,
      );
    case "unreachable":
      return fail(
        `${v.members.join(", ")} ${v.members.length === 1 ? "does" : "do"} not answer: is etcd.yaml back in ~/masters/<m>/etc/kubernetes/manifests (then \`lab kube sync <m>\`)?`,
      );
    case "old-cluster":
      return fail(
        `The members still run cluster ${before}, the one from before the incident: nothing has been restored yet. Restore every member from ${ctx.params["SNAPSHOT"] ?? "the snapshot"}.`,
      );
    case "no-leader":
      return fail(`The members share the new cluster ${v.clusterId} but have no leader yet: check again in a second.`);
    case "restored":
      return { ok: true, clusterId: v.clusterId };
  }
}

async function checkRestore(ctx: CheckContext): Promise<CheckResult> {
  const events = ctx.events as readonly DrillEvent[];
  const order = orderProblem(events);
  if (order?.kind === "apiserver-running") {
    return fail(
      `A kube-apiserver was still running when ${order.member} came up on its restored data dir: it served and cached the old state while etcd's history was swapped under it. Stop every apiserver (move the manifests out of all three masters) before any member comes back; \`lab reset\` and drill again.`,
    );
  }
  const cluster = await restoredCluster(ctx);
  if (!("ok" in cluster)) return cluster;
  const wanted = num(ctx, "SNAPSHOT_REV") + bump;
  const revision = await ctx.store.revision();
  if (revision < wanted) {
    return fail(
      `The new cluster is at revision ${revision}, below ${wanted} (the snapshot's ${num(ctx, "SNAPSHOT_REV")} + ${bump}): it was restored without --bump-revision ${bump} --mark-compacted, so revisions clients already saw will be issued again. Restore again with both flags.`,
    );
  }
  const compacted = await compactRevisions(ctx);
  const low = compacted.find((c) => c.rev < wanted);
  if (low) {
    return fail(
      `${low.name}'s compact revision is ${low.rev}, below ${wanted}: restore with --mark-compacted, so that every older revision reads as compacted and watches from before get 410.`,
    );
  }
  const content = await contentProblem(ctx);
  if (content) return fail(content);
  if (order?.kind === "apiserver-before-etcd") {
    return fail(
      "A kube-apiserver started again before etcd had quorum: bring etcd back on every master, check `etcdctl endpoint health --cluster`, and only then the other manifests. `lab reset` and drill again.",
    );
  }
  const reps = replacements(events).filter((r) => r.newClusterId === cluster.clusterId);
  const unseen = ctx.endpoints.map((_, i) => `m${i + 1}`).filter((m) => !reps.some((r) => r.member === m));
  if (unseen.length) {
    return fail(`The lab has not yet seen ${unseen.join(", ")} come up on the restored data: check again in a second.`);
  }
  const unkept = reps.filter((r) => !r.kept.some((k) => isBackupDir("etcd", k)));
  if (unkept.length) {
    return fail(
      `When ${unkept.map((r) => r.member).join(", ")} came up on the restored data, no old data dir was kept beside it (~/masters/<m>/var/lib/etcd.old): keep it until the restore is verified. \`lab reset\` and drill again.`,
    );
  }
  return pass(
    `Restored: cluster ${cluster.clusterId} (was ${ctx.params["CLUSTER_ID"]}), revision ${revision} ≥ ${wanted}, compacted at ${Math.min(...compacted.map((c) => c.rev))}; payments is back, the ${num(ctx, "CONFIGMAPS")} config-syncer ConfigMaps hold their T0 values, demo/late is gone.`,
  );
}

/** compactRevisions reads every member's HashKV compact_revision. */
async function compactRevisions(ctx: CheckContext): Promise<{ name: string; rev: number }[]> {
  const client = ctx.client;
  if (!client) return [];
  return Promise.all(
    ctx.endpoints.map(async (ep, i) => ({
      name: `m${i + 1}`,
      rev: (await client.hashKV(ep, 0, { timeoutMs: 5000 })).compactRevision,
    })),
  );
}

/** contentProblem compares the keys with the snapshot: what came back and what must be gone. */
async function contentProblem(ctx: CheckContext): Promise<string | null> {
  if (!(await ctx.store.get("/registry/namespaces/payments"))) {
    return "Namespace payments is missing: the data is not the T0 snapshot's. Restore from the snapshot in ~/incident.";
  }
  if (await ctx.store.get("/registry/deployments/demo/late")) {
    return "Deployment demo/late exists, but it was created after T0: the data is not the T0 snapshot's.";
  }
  const token = ctx.params["TOKEN"] ?? "";
  const count = num(ctx, "CONFIGMAPS");
  const kvs = await ctx.store.list(`/registry/configmaps/demo/${syncerName(0).slice(0, -3)}`);
  const byKey = new Map(kvs.map((kv) => [kv.key, kv.value]));
  const wrong: string[] = [];
  for (let i = 1; i <= count; i++) {
    const value = byKey.get(`/registry/configmaps/demo/${syncerName(i)}`) ?? "";
    if (!value.includes(syncerValue(token, i)) || value.includes(overwritten)) wrong.push(syncerName(i));
  }
  if (wrong.length) {
    return `${wrong.length} of the ${count} config-syncer ConfigMaps (${wrong.slice(0, 3).join(", ")}${wrong.length > 3 ? ", ..." : ""}) do not hold their T0 values.`;
  }
  return null;
}

async function checkClientsFromTheFuture(ctx: CheckContext): Promise<CheckResult> {
  const oldRv = num(ctx, "OLD_RV");
  const wanted = num(ctx, "SNAPSHOT_REV") + bump;
  const text = await ctx.files.read(watchFile);
  if (text === null) {
    return fail(
      `Save the answer of a watch on demo's ConfigMaps from resourceVersion ${oldRv} to ~/answers/watch-410.json.`,
    );
  }
  const got = parseWatch410(text);
  if ("problem" in got) return fail(`~/answers/watch-410.json ${got.problem}.`);
  if (got.requested !== oldRv) {
    return fail(`~/answers/watch-410.json is a watch from ${got.requested}; watch from ${oldRv} (lab param OLD_RV).`);
  }
  if (got.oldest < wanted) {
    return fail(
      `The 410 says the oldest resourceVersion is ${got.oldest}, below ${wanted}: was it answered before the restore was bumped? Watch again after the restore.`,
    );
  }
  const rvText = (await ctx.files.read(rvFile))?.trim();
  if (rvText === undefined) {
    return fail(
      "The 410 is right. Now save the resourceVersion of the list of demo's ConfigMaps, as the apiserver gives it now, to ~/answers/rv-after.",
    );
  }
  const rv = Number(rvText);
  if (!/^\d+$/.test(rvText) || rv < wanted) {
    return fail(
      `~/answers/rv-after holds "${rvText}", not a resourceVersion ≥ ${wanted}: save the list's metadata.resourceVersion (a single ConfigMap keeps the resourceVersion it had at T0).`,
    );
  }
  if (rv > (await ctx.store.revision())) return fail(`~/answers/rv-after holds ${rv}, beyond the store's revision.`);
  return pass(
    `A watch from ${oldRv} gets 410 too old resource version (the oldest is now ${got.oldest}), and lists answer at ${rv}: every informer relists instead of missing events.`,
  );
}

async function checkRevocation(ctx: CheckContext): Promise<CheckResult> {
  const name = ctx.params["SECRET"] ?? "";
  const restored = replacements(ctx.events as readonly DrillEvent[]).length > 0;
  const present = (await ctx.store.get(`/registry/secrets/demo/${name}`)) !== null;
  if (!restored || !(await ctx.store.get("/registry/namespaces/payments"))) {
    return fail(
      `Restore first (task 1). Secret demo/${name} is deleted now only because the cluster still holds the post-incident data.`,
    );
  }
  if (present) {
    return fail(
      `The restore brought back Secret demo/${name}, revoked after T0: delete it again (and rotate the token where it is used).`,
    );
  }
  return pass(`Secret demo/${name} is gone again: the revocation made after T0 is repeated on the restored cluster.`);
}

async function checkRestartAndCleanUp(ctx: CheckContext): Promise<CheckResult> {
  const events = ctx.events as readonly DrillEvent[];
  const reps = replacements(events);
  const last = reps[reps.length - 1];
  if (!last) return fail("Restore first (task 1).");
  const nodes = await nodeReadiness(ctx);
  if (typeof nodes === "string") return fail(`Cannot list the nodes: ${nodes}.`);
  const restarted = kubeletRestartsAfter(events, last.seq);
  const missing = nodes.map((n) => n.name).filter((n) => !restarted.has(n));
  if (missing.length) {
    return fail(
      `The kubelet on ${missing.join(", ")} has not restarted since the restore: its caches still hold the old state (\`lab kube kubelet-restart --all\`).`,
    );
  }
  const components = componentsStartedAfter(events, last.seq);
  const stale = ["kube-controller-manager", "kube-scheduler"].filter((c) => !components.has(c));
  if (stale.length)
    return fail(`${stale.join(" and ")} did not start again after the restore: put their manifests back.`);
  const notReady = nodes.filter((n) => !n.ready).map((n) => n.name);
  if (notReady.length) return fail(`${notReady.join(", ")} ${notReady.length === 1 ? "is" : "are"} not Ready yet.`);
  const late = podsStillRunning(events, "demo", "late-");
  if (late.length) {
    return fail(`The nodes still run ${late.join(", ")} of demo/late, created after T0: restart their kubelets.`);
  }
  if (!podsStartedAfter(events, "payments", last.seq).length) {
    return fail(
      "No pod of namespace payments runs again yet: the controllers recreate them once they lead (about 15 s).",
    );
  }
  const left = await plaintextLeft(ctx);
  if (left) return fail(`~/${left} is the decrypted snapshot: delete it (every Secret of the cluster is in it).`);
  return pass(
    `Every kubelet restarted, ${nodes.length} nodes are Ready, demo/late's pods are gone, payments runs again, and no plaintext snapshot is left.`,
  );
}

/** nodeReadiness lists the nodes and their Ready condition through the apiserver. */
async function nodeReadiness(ctx: CheckContext): Promise<{ name: string; ready: boolean }[] | string> {
  if (!ctx.kube) return "this lab needs its control plane";
  let list;
  try {
    list = await ctx.kube.list("nodes", "");
  } catch (err) {
    return `the apiserver does not answer (${(err as Error).message}): put the kube-apiserver manifests back`;
  }
  return list.items.map((n) => {
    const conditions = ((n["status"] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
      []) as { type: string; status: string }[];
    return { name: n.metadata.name ?? "", ready: conditions.some((c) => c.type === "Ready" && c.status === "True") };
  });
}

/** plaintextLeft finds a copy of the decrypted snapshot in home (the masters' data dirs aside). */
async function plaintextLeft(ctx: CheckContext): Promise<string | null> {
  const sha = ctx.params["SNAPSHOT_SHA256"] ?? "";
  const walk = async (dir: string, depth: number): Promise<string | null> => {
    for (const name of await ctx.files.list(dir ? `home/${dir}` : "home")) {
      const rel = dir ? `${dir}/${name}` : name;
      if (rel === "masters" || rel === ".kube" || name.endsWith(".age")) continue;
      const inner = depth < 4 ? await ctx.files.list(`home/${rel}`) : [];
      if (inner.length) {
        const found = await walk(rel, depth + 1);
        if (found) return found;
        continue;
      }
      const bytes = await ctx.files.bytes(`home/${rel}`);
      if (bytes && bytes.length > 4096 && (await sha256Hex(bytes)) === sha) return rel;
    }
    return null;
  };
  return walk("", 0);
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- solutions --------------------------------------------------------------------------------------------

const masters = ["m1", "m2", "m3"];
const each = (body: string) => `for m in ${masters.join(" ")}; do ${body}; done`;
const manifests = "~/masters/$m/etc/kubernetes/manifests";
const decrypt = [
  "age -d -i ~/keys/drill.agekey -o ~/restore/etcd.db ~/incident/etcd-*.db.age && chmod 600 ~/restore/etcd.db",
  "etcdutl snapshot status ~/restore/etcd.db -w table",
];
// lab kube sync returns once the kubelet has stopped what left the manifests (crictl ps is empty then).
const stopAll = [
  each(`mkdir -p ${manifests}-stopped && mv ${manifests}/*.yaml ${manifests}-stopped/ && lab kube sync $m >/dev/null`),
];
const stopEtcdOnly = [
  each(
    `mkdir -p ${manifests}-stopped && mv ${manifests}/etcd.yaml ${manifests}-stopped/ && lab kube sync $m >/dev/null`,
  ),
];
const initialCluster =
  'declare -A P=([m1]=$(lab peer-url m1) [m2]=$(lab peer-url m2) [m3]=$(lab peer-url m3)); IC="m1=${P[m1]},m2=${P[m2]},m3=${P[m3]}"';
const restoreEach = (token: string, extra: string) =>
  each(
    `mv ~/masters/$m/var/lib/etcd ~/masters/$m/var/lib/etcd.old && etcdutl snapshot restore ~/restore/etcd.db --name $m --initial-cluster "$IC" --initial-cluster-token ${token} --initial-advertise-peer-urls "\${P[$m]}" --data-dir ~/masters/$m/var/lib/etcd${extra}`,
  );
const bumpFlags = ` --bump-revision ${bump} --mark-compacted`;
const etcdBack = [
  each(`mv ${manifests}-stopped/etcd.yaml ${manifests}/ && lab kube sync $m >/dev/null`),
  'until [ "$(etcdctl endpoint health --cluster 2>/dev/null | grep -c "is healthy")" = 3 ]; do sleep 0.5; done',
];
const restBack = [
  each(`mv ${manifests}-stopped/*.yaml ${manifests}/ && rmdir ${manifests}-stopped && lab kube sync $m >/dev/null`),
  "until kubectl get --raw /readyz >/dev/null 2>&1; do sleep 0.5; done",
];
/** untilReplaced waits until the lab has seen all three members come up on restored data dirs. */
const untilReplaced = 'until [ "$(lab events 500 | grep -c datadir.replaced)" -ge 3 ]; do sleep 0.5; done';
/** untilMismatch waits until m1 and m2 have each refused a peer of another cluster (what their logs say). */
const untilMismatch =
  'until lab logs m1 -n 50 | grep -q "request cluster ID mismatch" && lab logs m2 -n 50 | grep -q "request cluster ID mismatch"; do sleep 0.5; done';
const drill = [...decrypt, ...stopAll, initialCluster, restoreEach("etcd-cluster-restored", bumpFlags), ...etcdBack];

/** lab is lab 16: the drill in four tasks, with the named wrong ways its checks refuse. */
export default defineLab({
  id: "16-disaster-recovery",
  title: "Disaster-recovery drill",
  summary:
    "Restore all three members from one snapshot in the right order, bump the revision, and reconcile what comes back and what vanishes.",
  cluster: { members: 3, kube: true, controlPlane: true },
  params: {
    TOKEN: { kind: "token", length: 6 },
    CONFIGMAPS: { kind: "int", min: 60, max: 90 },
    SECRET: {
      kind: "choice",
      values: ["ci-deploy-token", "registry-pull-token", "webhook-signing-key", "gitlab-runner-token"],
    },
  },
  setup: playIncident,
  tasks: [
    {
      id: "restore",
      title: "Restore every member from the T0 snapshot",
      goal: "All three members run one **new** cluster restored from `{{SNAPSHOT}}`, at revision ≥ {{SNAPSHOT_REV}} + 1,000,000,000 and compacted there; every kube-apiserver was down while the data dirs changed, and the old data dirs are kept as `etcd.old`.",
      check: checkRestore,
      hints: [
        "Decrypt the snapshot into ~/restore with the drill identity (`age -d -i ~/keys/drill.agekey ...`) and read it with `etcdutl snapshot status`.",
        "Stop every static pod first: move all four manifests of each master out of ~/masters/<m>/etc/kubernetes/manifests, then `lab kube sync <m>` (the kubelet polls every 20 s). `crictl --master <m> ps` is empty when they are gone.",
        "Move each data dir aside (`mv .../var/lib/etcd .../var/lib/etcd.old`): restore refuses a non-empty one.",
        'Restore each member with its own `--name` and `--initial-advertise-peer-urls "$(lab peer-url <m>)"`, one common `--initial-cluster` and one common new `--initial-cluster-token`, and `--bump-revision 1000000000 --mark-compacted`.',
        "Put etcd.yaml back on every master, wait for `etcdctl endpoint health --cluster`, then the other manifests.",
      ],
      solution: [...drill, ...restBack],
      antiSolutions: [
        {
          name: "without-bump-revision",
          commands: [
            ...decrypt,
            ...stopAll,
            initialCluster,
            restoreEach("etcd-cluster-restored", ""),
            ...etcdBack,
            ...restBack,
          ],
          message: "without --bump-revision",
        },
        {
          name: "under-a-running-apiserver",
          commands: [
            ...decrypt,
            ...stopEtcdOnly,
            initialCluster,
            restoreEach("etcd-cluster-restored", bumpFlags),
            ...etcdBack,
            untilReplaced,
          ],
          message: "kube-apiserver was still running",
        },
        {
          name: "different-tokens",
          commands: [
            ...decrypt,
            ...stopAll,
            initialCluster,
            restoreEach("etcd-restored-$m", bumpFlags),
            etcdBack[0] ?? "",
            untilMismatch,
          ],
          message: "never formed one cluster",
        },
      ],
    },
    {
      id: "clients-from-the-future",
      title: "Meet the clients from the future",
      goal: "`~/answers/watch-410.json` holds the apiserver's answer to a watch on demo's ConfigMaps from resourceVersion {{OLD_RV}}, and `~/answers/rv-after` the resourceVersion of that list now.",
      check: checkClientsFromTheFuture,
      hints: [
        "`lab param OLD_RV` is the last resourceVersion an informer saw before the restore.",
        'kubectl get --raw "/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=$(lab param OLD_RV)&timeoutSeconds=2"',
        "A list's resourceVersion is in its metadata: `kubectl get --raw /api/v1/namespaces/demo/configmaps | jq -r .metadata.resourceVersion`.",
      ],
      solution: [
        'kubectl get --raw "/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=$(lab param OLD_RV)&timeoutSeconds=2" > ~/answers/watch-410.json',
        "kubectl get --raw /api/v1/namespaces/demo/configmaps | jq -r .metadata.resourceVersion > ~/answers/rv-after",
      ],
    },
    {
      id: "repeat-revocation",
      title: "Repeat the revocation the restore undid",
      goal: "Secret `demo/{{SECRET}}`, deleted after T0 and brought back by the restore, is deleted again.",
      check: checkRevocation,
      hints: [
        "Which objects changed after T0? The restore turned every one of those changes back.",
        "kubectl -n demo delete secret $(lab param SECRET)",
      ],
      solution: ["kubectl -n demo delete secret $(lab param SECRET)"],
    },
    {
      id: "restart-and-clean-up",
      title: "Restart the stateful components and clean up",
      goal: "Every node's kubelet restarted after the restore, all nodes are Ready, no node runs a pod of `demo/late`, payments runs again, and the decrypted snapshot is deleted.",
      check: checkRestartAndCleanUp,
      hints: [
        "The kubelets still run the pods they had before the restore: restart them (`lab kube kubelet-restart --all`, the lab's `systemctl restart kubelet`).",
        "`lab kube pods` shows each pod as the node runs it and as the API has it.",
        "The plaintext snapshot holds every Secret: `rm ~/restore/etcd.db` once the cluster is verified.",
      ],
      solution: [
        "lab kube kubelet-restart --all",
        "until lab kube pods | grep '^payments/' | grep -q 'Running on'; do sleep 1; done",
        "rm -f ~/restore/etcd.db",
      ],
    },
  ],
});
