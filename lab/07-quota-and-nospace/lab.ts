// Lab 7, "Quota and the NOSPACE alarm": a 3-member cluster with a 32 MiB quota (small on purpose; production
// defaults to 2 GiB) and its simulated control plane, plus a leaking operator (leaky/configmap-spammer, at 0
// replicas) whose pods each create a 512 KiB ConfigMap a second. The learner fills the quota, watches what
// breaks, recovers in the right order and raises the quota with a rolling restart. Checks read the cluster
// (alarms, db sizes, each member's quota from its /metrics, the leak's objects through the apiserver) and the
// event log (alarms raised and cleared, node Lease renewals, members down); never keystrokes.
import { defineLab, type CheckContext, type CheckResult, type MemberStatus } from "../lab-format.ts";
import {
  firstOverlap,
  leaseFailures,
  mib,
  noSpaceStory,
  quorumLostAfter,
  quotaFromMetrics,
  servingTimes,
  siBytes,
  staleLeases,
} from "./signals.ts";

/** labQuotaBytes is the lab's --quota-backend-bytes: 32 MiB, so that the leak fills it in well under a minute. */
export const labQuotaBytes = 32 * 1024 * 1024;

/** raisedQuotas are the quotas task 5 may ask for (drawn per session): 48, 64 or 96 MiB. */
export const raisedQuotas = ["50331648", "67108864", "100663296"];

/** leakPrefixes hold what the leak (or lab fill-quota) wrote. */
export const leakPrefixes = ["/registry/configmaps/leaky/", "/lab/fill/"];

/** leakLeftMaxBytes is how much of it may stay: less than 1 MB. */
export const leakLeftMaxBytes = 1_000_000;

/** roomShare: above this share of its quota a member's next writes soon raise NOSPACE again. */
export const roomShare = 0.9;

/** headroomShare is the target of task 4: every db file under half of its quota. */
export const headroomShare = 0.5;

/** leakyManifest is the leaking operator (its image is recognised by the simulated kubelet: engine/kube/sim). */
export const leakyManifest = `apiVersion: v1
kind: Namespace
metadata:
  name: leaky
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: configmap-spammer
  namespace: leaky
  labels:
    app: configmap-spammer
spec:
  replicas: 0
  selector:
    matchLabels:
      app: configmap-spammer
  template:
    metadata:
      labels:
        app: configmap-spammer
    spec:
      containers:
      - name: spammer
        # Simulated: the lab's kubelet runs a loop that creates a 512 KiB ConfigMap every second.
        image: lab.local/leaky/configmap-spammer:1.0
`;

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });
const pct = (n: number, of: number) => `${Math.round((100 * n) / Math.max(1, of))} %`;

/** MemberQuota is a member's db file size against its own quota. */
interface MemberQuota {
  name: string;
  reachable: boolean;
  dbSize: number;
  quota: number;
  alarms: string[];
}

/** memberQuotas reads each member's quota from its /metrics (both backends), else from Status (3.6 only). */
async function memberQuotas(ctx: CheckContext): Promise<MemberQuota[]> {
  const status = await ctx.status();
  return Promise.all(
    status.members.map(async (m: MemberStatus) => {
      let quota = m.dbSizeQuota;
      if (m.reachable) {
        // Best effort, headers and body alike: a member too slow to answer in time keeps its Status quota.
        const text = await fetch(`${m.metricsUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })
          .then((res) => (res.ok ? res.text() : null))
          .catch(() => null);
        const fromMetrics = text !== null ? quotaFromMetrics(text) : null;
        if (fromMetrics !== null) quota = fromMetrics;
      }
      return { name: m.name, reachable: m.reachable, dbSize: m.dbSize, quota, alarms: m.alarms };
    }),
  );
}

function fullest(ms: readonly MemberQuota[]): MemberQuota | undefined {
  return [...ms].filter((m) => m.reachable).sort((a, b) => b.dbSize / b.quota - a.dbSize / a.quota)[0];
}

async function checkFilled(ctx: CheckContext): Promise<CheckResult> {
  const ms = await memberQuotas(ctx);
  const alarmed = ms.filter((m) => m.alarms.includes("NOSPACE"));
  if (alarmed.length > 0) {
    const raisedBy = ((await ctx.client?.alarmList().catch(() => null))?.alarms ?? [])
      .filter((a) => a.alarm === 1)
      .map((a) => a.memberID.toString());
    const who = raisedBy.length ? ` (\`alarm list\` names memberID ${raisedBy.join(", ")}: IDs in decimal)` : "";
    return pass(`NOSPACE is raised${who}: etcd now refuses writes and still serves reads and deletes.`);
  }
  const top = fullest(ms);
  const size = top
    ? `${top.name}'s db is ${siBytes(top.dbSize)} of its ${siBytes(top.quota)} quota`
    : "no member answers";
  return fail(
    `No NOSPACE alarm yet: ${size}. Scale the leak up (\`kubectl -n leaky scale deployment configmap-spammer --replicas=3\`), run \`lab fill-quota\`, or write big values yourself.`,
  );
}

async function checkLeakStopped(ctx: CheckContext): Promise<CheckResult> {
  if (!noSpaceStory(ctx.events).raised) return fail("First fill the quota (task 1): NOSPACE has not been raised yet.");
  if (!ctx.kube) throw new Error("lab 7 needs the control plane: ctx.kube is not set");
  const deploy = await ctx.kube.get("deployments", "leaky", "configmap-spammer").catch((err: { code?: number }) => {
    if (err.code === 404) return null;
    throw err;
  });
  const wanted = (deploy?.["spec"] as { replicas?: number } | undefined)?.replicas ?? 0;
  if (deploy && wanted > 0) {
    return fail(
      `The Deployment leaky/configmap-spammer still asks for ${wanted} replicas. \`kubectl scale\` is an update, refused under NOSPACE; a delete is allowed: \`kubectl -n leaky delete deployment configmap-spammer\`.`,
    );
  }
  const sets = (await ctx.kube.list("replicasets", "leaky")).items.filter(
    (rs) => ((rs["spec"] as { replicas?: number } | undefined)?.replicas ?? 0) > 0,
  );
  if (sets[0]) {
    return fail(
      `ReplicaSet leaky/${sets[0].metadata.name} still keeps its pods. A real cluster's garbage collector deletes it after its Deployment; the lab's simulated control plane has none: \`kubectl -n leaky delete replicaset --all\`.`,
    );
  }
  const pods = (await ctx.kube.list("pods", "leaky")).items;
  if (pods[0]) {
    return fail(
      `Pod leaky/${pods[0].metadata.name} (and ${pods.length - 1} more) still runs and keeps trying to write. A graceful pod delete is an update, refused under NOSPACE: \`kubectl -n leaky delete pod --all --force --grace-period=0\`.`,
    );
  }
  for (const prefix of leakPrefixes) {
    const keys = await ctx.store.list(prefix);
    const bytes = keys.reduce((sum, k) => sum + k.valueBytes.length, 0);
    if (bytes >= leakLeftMaxBytes) {
      return fail(
        `${siBytes(bytes)} is still under ${prefix} (${keys.length} keys). Deletes are allowed under NOSPACE: \`etcdctl del --prefix ${prefix}\`.`,
      );
    }
  }
  return pass(
    "The leak is stopped and what it wrote is deleted. The db files are as big as before: a delete only frees pages inside them.",
  );
}

async function checkWritesWork(ctx: CheckContext): Promise<CheckResult> {
  const story = noSpaceStory(ctx.events);
  if (!story.raised) return fail("First fill the quota (task 1): NOSPACE has not been raised yet.");
  const ms = await memberQuotas(ctx);
  const down = ms.find((m) => !m.reachable);
  if (down) return fail(`${down.name} does not answer: start it again and check once it is up.`);
  const alarmed = ms.some((m) => m.alarms.includes("NOSPACE"));
  const top = fullest(ms);
  const tooBig = top && top.dbSize >= roomShare * top.quota ? top : null;
  if (alarmed && tooBig) {
    return fail(
      `NOSPACE is active and ${tooBig.name}'s db file is ${siBytes(tooBig.dbSize)}, ${pct(tooBig.dbSize, tooBig.quota)} of its ${siBytes(tooBig.quota)} quota. Compaction frees pages inside the file; only \`etcdctl defrag\` shrinks it. Defrag each member, then \`etcdctl alarm disarm\`.`,
    );
  }
  if (alarmed) {
    return fail(
      `Every member has room again (the fullest, ${top?.name}, is at ${top ? pct(top.dbSize, top.quota) : "?"}), but NOSPACE never clears by itself: \`etcdctl alarm disarm\`.`,
    );
  }
  if (tooBig) {
    return fail(
      `The alarm is disarmed, but ${tooBig.name}'s db file is still ${siBytes(tooBig.dbSize)}, ${pct(tooBig.dbSize, tooBig.quota)} of its quota: the next write raises NOSPACE again. Compact, defrag each member, then disarm.`,
    );
  }
  const stale = staleLeases(ctx.events, 0);
  if (stale.length > 0) {
    return fail(
      `etcd takes writes again, but the kubelet of ${stale.join(", ")} has not renewed its node Lease since (it tries every 10 s): check again in a few seconds.`,
    );
  }
  const renewed = leaseFailures(ctx.events, 0);
  return pass(
    renewed.length
      ? `Writes work again: no alarm, every db file has room, and the node Leases of ${renewed.join(", ")} that failed under NOSPACE are renewed.`
      : "Writes work again: no alarm and every db file has room.",
  );
}

async function checkHeadroom(ctx: CheckContext): Promise<CheckResult> {
  if (!noSpaceStory(ctx.events).raised) return fail("First fill the quota (task 1): NOSPACE has not been raised yet.");
  const ms = await memberQuotas(ctx);
  const down = ms.find((m) => !m.reachable);
  if (down) return fail(`${down.name} does not answer: start it again and check once it is up.`);
  const over = ms.filter((m) => m.dbSize >= headroomShare * m.quota);
  if (over[0]) {
    const m = over[0];
    return fail(
      `${m.name}'s db file is ${siBytes(m.dbSize)}, ${pct(m.dbSize, m.quota)} of its ${siBytes(m.quota)} quota. Did you defrag it? \`ETCDCTL_ENDPOINTS=$(lab ep ${m.name}) etcdctl defrag\``,
    );
  }
  const top = fullest(ms);
  return pass(
    `Every db file is under half of its quota (the fullest, ${top?.name}, is ${top ? siBytes(top.dbSize) : "?"}): room to grow, and time for an alert at 80 %.`,
  );
}

async function checkRaisedQuota(ctx: CheckContext): Promise<CheckResult> {
  const target = Number(ctx.params["QUOTA"] ?? raisedQuotas[1]);
  const serving: Record<string, number[]> = {};
  for (const m of ["m1", "m2", "m3"]) {
    const log = await ctx.files.read(`logs/${m}.log`);
    if (log !== null) serving[m] = servingTimes(log);
  }
  const overlap = firstOverlap(ctx.events, serving);
  if (overlap) {
    const at = new Date(overlap.at).toISOString().slice(11, 19);
    return fail(
      `${overlap.members.join(" and ")} were down at the same time (${at} UTC): with 3 members, two down is no quorum. Restart one member at a time and wait until it is healthy before the next; \`lab reset\` to start over.`,
    );
  }
  const lost = quorumLostAfter(ctx.events, 0);
  if (lost) return fail("Quorum was lost during the change: restart one member at a time; `lab reset` to start over.");
  const ms = await memberQuotas(ctx);
  const down = ms.find((m) => !m.reachable);
  if (down) return fail(`${down.name} does not answer: wait until it is up (\`etcdctl endpoint health\`).`);
  const old = ms.filter((m) => m.quota !== target);
  if (old[0]) {
    const m = old[0];
    return fail(
      `${m.name} runs with a ${mib(m.quota)} quota (etcd_server_quota_backend_bytes ${m.quota}), not ${mib(target)}: set --quota-backend-bytes=${target} in ~/masters/${m.name}/etc/kubernetes/manifests/etcd.yaml and \`lab kube sync ${m.name}\`.`,
    );
  }
  return pass(
    `All ${ms.length} members run with --quota-backend-bytes=${target} (${mib(target)}), restarted one at a time: never two down, quorum kept.`,
  );
}

/** quotaEdit is the sed that sets the session's target quota in a master's etcd manifest. */
const quotaEdit = (m: string) =>
  `sed -i "s/--quota-backend-bytes=[0-9]*/--quota-backend-bytes=$(lab param QUOTA)/" ~/masters/${m}/etc/kubernetes/manifests/etcd.yaml`;

/** quotaIs exits 0 when the metrics on stdin show the session's target quota (3.4 prints 6.7108864e+07). */
const quotaIs = `awk -v q="$(lab param QUOTA)" '$1 == "etcd_server_quota_backend_bytes" && $2 + 0 == q {ok = 1} END {exit !ok}' || exit 1`;

/** revision prints the store's current revision (endpoint status -w fields). */
const revision = `etcdctl endpoint status -w fields | awk '$1 == "\\"Revision\\"" {print $3; exit}'`;

const stopLeak = [
  "kubectl -n leaky delete deployment configmap-spammer",
  "kubectl -n leaky delete replicaset --all",
  "kubectl -n leaky delete pod --all --force --grace-period=0",
  "etcdctl del --prefix /registry/configmaps/leaky/",
  "etcdctl del --prefix /lab/fill/",
];

const defragEach = "for m in m1 m2 m3; do ETCDCTL_ENDPOINTS=$(lab ep $m) etcdctl defrag; done";

/** lab is lab 7. */
export default defineLab({
  id: "07-quota-and-nospace",
  title: "Quota and the NOSPACE alarm",
  summary:
    "Fill a 32 MiB quota with a leaking operator, watch writes, leases and the apiserver fail, recover in the right order and raise the quota with a rolling restart.",
  cluster: { members: 3, quotaBackendBytes: labQuotaBytes, kube: true, controlPlane: true },
  params: { QUOTA: { kind: "choice", values: raisedQuotas } },
  async setup(ctx) {
    await ctx.writeFile("home/leaky.yaml", leakyManifest);
    const res = await ctx.run("kubectl apply -f leaky.yaml");
    if (res.code !== 0) throw new Error(`lab 7 setup: kubectl apply -f leaky.yaml failed: ${res.stderr}`);
  },
  tasks: [
    {
      id: "fill-the-quota",
      title: "Fill the quota",
      goal: "Make etcd run out of space: the `NOSPACE` alarm must be raised. Any way counts: scale up the leaking operator `leaky/configmap-spammer`, run `lab fill-quota`, or write big values yourself.",
      check: checkFilled,
      hints: [
        "`kubectl -n leaky get deployment configmap-spammer` is at 0 replicas; each replica writes a 512 KiB ConfigMap a second.",
        "`kubectl -n leaky scale deployment configmap-spammer --replicas=3`, then watch `etcdctl endpoint status --cluster -w table` grow towards QUOTA.",
        "`etcdctl alarm list` prints `memberID:<decimal id> alarm:NOSPACE` once the quota is hit.",
      ],
      solution: [
        "kubectl -n leaky scale deployment configmap-spammer --replicas=3",
        "until etcdctl alarm list | grep -q NOSPACE; do sleep 1; done",
      ],
    },
    {
      id: "stop-the-leak",
      title: "Stop the leak and delete what it wrote",
      goal: "No `configmap-spammer` Deployment (or 0 replicas), ReplicaSet or pod left in namespace `leaky`, and less than 1 MB under `/registry/configmaps/leaky/` and `/lab/fill/`.",
      check: checkLeakStopped,
      hints: [
        "Under NOSPACE etcd takes reads and deletes only: `kubectl scale` (an update) fails, `kubectl delete` works.",
        "Delete the Deployment, then its ReplicaSet and pods (`--force --grace-period=0`: a graceful pod delete is an update).",
        "`etcdctl del --prefix /registry/configmaps/leaky/` removes the ConfigMaps in one delete.",
      ],
      solution: stopLeak,
    },
    {
      id: "writes-work-again",
      title: "Make writes work again",
      goal: "No alarm on any member, every member's db file with room under its quota, and every node Lease that failed to renew renewed since.",
      check: checkWritesWork,
      hints: [
        "The order matters: compact the history, defrag each member (the file shrinks only then), disarm last.",
        'Compact to the current revision: `etcdctl compact $(etcdctl endpoint status -w fields | awk \'$1 == "\\"Revision\\"" {print $3; exit}\')`.',
        "`for m in m1 m2 m3; do ETCDCTL_ENDPOINTS=$(lab ep $m) etcdctl defrag; done`, then `etcdctl alarm disarm`.",
      ],
      solution: [
        `etcdctl compact "$(${revision})"`,
        defragEach,
        "etcdctl alarm disarm",
        `REV=$(${revision})`,
        'until [ "$(etcdctl get --prefix /registry/leases/kube-node-lease/ --keys-only --min-mod-rev=$((REV + 1)) | grep -c .)" -ge "$(kubectl get nodes --no-headers | wc -l)" ]; do sleep 1; done',
      ],
      antiSolutions: [
        {
          name: "disarm-without-defrag",
          commands: [`etcdctl compact "$(${revision})"`, "etcdctl alarm disarm", "etcdctl put /lab/probe after-disarm"],
          message: "defrag",
        },
      ],
    },
    {
      id: "headroom",
      title: "Leave headroom",
      goal: "Every member's db file under half of its quota (`DB SIZE` against `QUOTA` in `etcdctl endpoint status --cluster -w table`).",
      check: checkHeadroom,
      hints: [
        "Compare DB SIZE with QUOTA per member; `IN USE` shows what the data needs.",
        "A member that was not defragmented keeps its big file: defrag it alone with `ETCDCTL_ENDPOINTS=$(lab ep m2) etcdctl defrag`.",
      ],
      solution: [defragEach, "etcdctl endpoint status --cluster -w table"],
    },
    {
      id: "raise-quota",
      title: "Raise the quota with a rolling restart",
      goal: "Every member runs with `--quota-backend-bytes={{QUOTA}}`, set in its static-pod manifest `~/masters/<m>/etc/kubernetes/manifests/etcd.yaml`, restarted one at a time: never two members down, quorum never lost.",
      check: checkRaisedQuota,
      hints: [
        "`lab param QUOTA` prints the quota to set. The flag lives in each master's etcd.yaml; its kubelet restarts etcd when the file changes (`lab kube sync <m>` makes it look now).",
        "Change one member, wait until `ETCDCTL_ENDPOINTS=$(lab ep <m>) etcdctl endpoint health` is healthy, then the next; the leader last.",
        "`curl -s $(lab metrics m1)/metrics | grep ^etcd_server_quota_backend_bytes` shows the quota a member runs with.",
      ],
      solution: [
        "LEADER=$(lab status | awk '$4 == \"*\" {print $1}')",
        `for m in $(printf '%s\\n' m1 m2 m3 | grep -vx "$LEADER") $LEADER; do ${quotaEdit("$m")}; lab kube sync $m; until ETCDCTL_ENDPOINTS=$(lab ep $m) etcdctl endpoint health >/dev/null 2>&1; do sleep 0.5; done; done`,
      ],
      antiSolutions: [
        {
          // The kubelets poll their manifests every 20 s, all at about the same moment: they restart together.
          name: "edit-every-manifest-at-once",
          commands: [
            `for m in m1 m2 m3; do ${quotaEdit("$m")}; done`,
            `until (for m in m1 m2 m3; do curl -s $(lab metrics $m)/metrics | ${quotaIs}; done); do sleep 1; done`,
            "until etcdctl endpoint health --cluster >/dev/null 2>&1; do sleep 0.5; done",
          ],
          message: "down at the same time|Quorum was lost",
        },
      ],
    },
  ],
});
