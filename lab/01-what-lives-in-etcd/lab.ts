// Lab 1, "What lives in etcd": a cluster seeded like a small Kubernetes control plane. The learner lists and
// counts keys, reads an object's resourceVersion (its mod_revision) and recovers a value from an older
// revision. Every check grades the cluster's state: answers are keys the learner writes under /lab/answers/.
import { defineLab, type CheckContext, type CheckResult } from "../lab-format.ts";
import { ippoolKey, ippoolOriginal, ippoolOverwritten } from "./ippool.ts";

/** answers are the keys where the learner records what they found. */
export const answers = {
  podCount: "/lab/answers/pod-count",
  resourceVersion: "/lab/answers/coredns-resource-version",
  originalCidr: "/lab/answers/original-cidr",
} as const;

/** corednsKey is the Deployment whose resourceVersion task 2 asks for. */
export const corednsKey = "/registry/deployments/kube-system/coredns";

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });

/** answerOf reads an answer key as trimmed text, or null when the learner has not written it. */
async function answerOf(ctx: CheckContext, key: string): Promise<string | null> {
  const kv = await ctx.store.get(key);
  return kv === null ? null : kv.value.trim();
}

async function checkPodCount(ctx: CheckContext): Promise<CheckResult> {
  const written = await ctx.store.get(answers.podCount);
  if (written === null) return fail(`${answers.podCount} does not exist yet: put the number of pods there.`);
  const answer = written.value.trim();
  // Controllers may add or replace pods: count them as they were when the answer was written.
  const asOf = { revision: written.modRevision };
  const pods = await ctx.store.count("/registry/pods/", asOf);
  if (answer === String(pods)) return pass(`Right: ${pods} pods, one key each under /registry/pods/.`);
  if (answer === String(pods * 2)) {
    return fail(`${answer} is twice too many: --keys-only prints an empty line after each key. Count only the keys.`);
  }
  const loose = await ctx.store.count("/registry/pods", asOf);
  if (loose !== pods && answer === String(loose)) {
    return fail(
      `${answer} counts keys under /registry/pods without the final slash, which also matches other resources.`,
    );
  }
  return fail(`${answers.podCount} holds "${answer}", which is not the number of keys under /registry/pods/.`);
}

async function checkResourceVersion(ctx: CheckContext): Promise<CheckResult> {
  const written = await ctx.store.get(answers.resourceVersion);
  if (written === null)
    return fail(`${answers.resourceVersion} does not exist yet: put coredns's resourceVersion there.`);
  const answer = written.value.trim();
  // The controller-manager keeps writing the Deployment's status, so its resourceVersion moves on: grade the
  // answer against the object as it was when the answer was written (this lab keeps its history: no compaction).
  const kv = await ctx.store.get(corednsKey, { revision: written.modRevision });
  if (kv === null) return fail(`${corednsKey} is gone: reset the lab to bring it back.`);
  if (answer === String(kv.modRevision)) {
    return pass(`Right: resourceVersion ${kv.modRevision} is the mod_revision of ${corednsKey}.`);
  }
  if (answer === String(kv.createRevision)) {
    return fail(`${answer} is its create_revision; resourceVersion follows the latest change (mod_revision).`);
  }
  if (answer === String(kv.version)) {
    return fail(`${answer} is its version (a per-key write count); resourceVersion is a revision number.`);
  }
  return fail(`${answers.resourceVersion} holds "${answer}", not the mod_revision of ${corednsKey}.`);
}

async function checkOriginalCidr(ctx: CheckContext): Promise<CheckResult> {
  const answer = await answerOf(ctx, answers.originalCidr);
  if (answer === null)
    return fail(`${answers.originalCidr} does not exist yet: put the IP pool's original CIDR there.`);
  const original = JSON.parse(ippoolOriginal) as { spec: { cidr: string } };
  const current = JSON.parse(ippoolOverwritten) as { spec: { cidr: string } };
  if (answer === original.spec.cidr) {
    return pass(`Right: the pool was created with ${original.spec.cidr}, found with --rev at its create_revision.`);
  }
  if (answer === current.spec.cidr) {
    return fail(`${answer} is the CIDR now; read the key as it was at its create_revision (get --rev).`);
  }
  return fail(`${answers.originalCidr} holds "${answer}", which is not the CIDR the pool was created with.`);
}

/** lab is lab 1: a seeded 3-member cluster with history, and three tasks graded from the store. */
export default defineLab({
  id: "01-what-lives-in-etcd",
  title: "What lives in etcd",
  summary: "A cluster seeded like a small Kubernetes control plane: list, count, decode and read the past.",
  cluster: {
    members: 3,
    kube: true,
    // Compaction off: task 3 reads an old revision, which kube-apiserver's 5-minute compaction would remove.
    controlPlane: { compactionIntervalMs: 0 },
  },
  async setup(ctx) {
    // A Calico IPPool (custom resources are stored as JSON), created and then overwritten, so it has history.
    await ctx.store.delete(ippoolKey);
    await ctx.store.put(ippoolKey, ippoolOriginal);
    await ctx.store.put(ippoolKey, ippoolOverwritten);
  },
  tasks: [
    {
      id: "count-pods",
      title: "Count the pods",
      goal: `Put the number of pods in the cluster into the key \`${answers.podCount}\`.`,
      check: checkPodCount,
      hints: [
        "Every pod is one key under /registry/pods/<namespace>/<name>. List them with --prefix --keys-only.",
        "etcdctl prints an empty line after each key. `grep -c '^/'` counts only the lines that are keys.",
        `etcdctl put ${answers.podCount} "$(etcdctl get /registry/pods/ --prefix --keys-only | grep -c '^/')"`,
      ],
      solution: [
        `etcdctl put ${answers.podCount} "$(etcdctl get /registry/pods/ --prefix --keys-only | grep -c '^/')"`,
      ],
      antiSolutions: [
        {
          // wc -l counts the empty line etcdctl prints after each key too
          name: "count-every-line",
          commands: [`etcdctl put ${answers.podCount} "$(etcdctl get /registry/pods/ --prefix --keys-only | wc -l)"`],
          message: "twice too many: --keys-only prints an empty line after each key",
        },
      ],
    },
    {
      id: "resource-version",
      title: "Find the resourceVersion of the coredns Deployment",
      goal: `Put the resourceVersion of the Deployment kube-system/coredns into the key \`${answers.resourceVersion}\`.`,
      check: checkResourceVersion,
      hints: [
        `The Deployment is stored at ${corednsKey}.`,
        "resourceVersion is the key's mod_revision. `-w fields` or `-w json` prints it.",
        `etcdctl get ${corednsKey} -w fields | grep ModRevision`,
      ],
      solution: [
        `RV=$(etcdctl get ${corednsKey} -w json | grep -o '"mod_revision":[0-9]*' | cut -d: -f2)`,
        `etcdctl put ${answers.resourceVersion} "$RV"`,
      ],
    },
    {
      id: "original-cidr",
      title: "Recover the IP pool's original CIDR",
      goal: `Put the CIDR the IP pool \`default-ipv4-ippool\` was created with (not today's) into the key \`${answers.originalCidr}\`.`,
      check: checkOriginalCidr,
      hints: [
        `The pool is ${ippoolKey}; its value is JSON. Its create_revision is the revision that created it.`,
        "`etcdctl get <key> --rev=<create_revision> --print-value-only` prints the value as it was then.",
        'Pick the CIDR out of the JSON with `grep -o \'"cidr":"[^"]*"\'`, then put it into the answer key.',
      ],
      solution: [
        `CREATED=$(etcdctl get ${ippoolKey} -w json | grep -o '"create_revision":[0-9]*' | cut -d: -f2)`,
        `CIDR=$(etcdctl get ${ippoolKey} --rev="$CREATED" --print-value-only | grep -o '"cidr":"[^"]*"' | cut -d'"' -f4)`,
        `etcdctl put ${answers.originalCidr} "$CIDR"`,
      ],
    },
  ],
});
