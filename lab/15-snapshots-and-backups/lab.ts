// Lab 15, "Snapshots and backup hygiene": a snapshot from one member, inspected with etcdutl; forensics on a
// copied member/snap/db (no hash: --skip-hash-check); an age-encrypted snapshot shipped to an S3 bucket the
// learner can write but not read; the pki and the EncryptionConfiguration as separate encrypted objects; and
// the CronJob that does it every hour, run once by hand in the simulated control plane. Every check grades
// the artefacts (files, objects, the CronJob and its Jobs) and the members' own log lines, never commands.
import { createHash, randomBytes } from "node:crypto";
import { defineLab, type SetupContext } from "../lab-format.ts";
import {
  answerFile,
  checkControlPlane,
  checkForensics,
  checkOffCluster,
  checkSnapshot,
  setupFile,
  type SetupRecord,
} from "./checks.ts";
import { bucketOf } from "./bucket.ts";
import { checkCronJob, type KubeReader } from "./cronjob-check.ts";
import { cronJobManifest } from "./cronjob-manifest.ts";

/** forensicsScript builds raw-copy.db: a scratch member's db file, copied after it stopped, then removed. */
export function forensicsScript(values: string[]): string {
  const puts = values.map((v) => `etcdctl put /lab/forensics/token '${v}' >/dev/null`).join("\n");
  return `set -e
D=$(mktemp -d); P1=$(lab free-port); P2=$(lab free-port)
etcd --name old-1 --data-dir "$D/old-1" --listen-client-urls http://127.0.0.1:$P1 --advertise-client-urls http://127.0.0.1:$P1 \\
  --listen-peer-urls http://127.0.0.1:$P2 --initial-advertise-peer-urls http://127.0.0.1:$P2 \\
  --initial-cluster old-1=http://127.0.0.1:$P2 >"$D/log" 2>&1 & PID=$!
export ETCDCTL_ENDPOINTS=http://127.0.0.1:$P1
for i in $(seq 1 100); do etcdctl endpoint health >/dev/null 2>&1 && break; sleep 0.2; done
etcdctl put /registry/namespaces/forensics '{"kind":"Namespace"}' >/dev/null
${puts}
kill -TERM $PID; wait $PID || true
mkdir -p ~/backups ~/answers
cp "$D/old-1/member/snap/db" ~/backups/raw-copy.db; chmod 0644 ~/backups/raw-copy.db
rm -rf "$D"`;
}

async function setup(ctx: SetupContext): Promise<void> {
  const token = randomBytes(12).toString("hex");
  const decoys = [0, 1, 2].map(() => randomBytes(12).toString("hex"));
  const r = await ctx.run(forensicsScript([...decoys, token]));
  if (r.code !== 0) throw new Error(`lab 15 setup: building raw-copy.db failed: ${r.stderr || r.stdout}`);
  const rec: SetupRecord = {
    startRev: await ctx.store.revision(),
    tokenSha256: createHash("sha256").update(token).digest("hex"),
  };
  await ctx.writeFile(setupFile, JSON.stringify(rec));
}

const saveCmd = (member: string) =>
  `ETCDCTL_ENDPOINTS=$(lab ep ${member}) etcdctl snapshot save ~/backups/etcd-snapshot-$(date +%Y%m%d-%H%M%S).db`;
const recipient = `"$(cat ~/keys/backup.pub)"`;
const rcloneFlags = "--no-check-dest --s3-no-check-bucket --s3-no-head";

export default defineLab({
  id: "15-snapshots-and-backups",
  title: "Snapshots and backup hygiene",
  summary: "A snapshot from one member, a raw db copy for forensics, encrypted off-cluster copies and a CronJob.",
  cluster: {
    members: 3,
    kube: { encryptSecrets: true },
    controlPlane: true,
    s3: true,
    backupKey: true,
    pki: true,
  },
  params: { SNAP_MEMBER: { kind: "member" } },
  setup,
  tasks: [
    {
      id: "snapshot",
      title: "Take a real snapshot from one member",
      goal: "A snapshot file `~/backups/*.db` served by **{{SNAP_MEMBER}}**, as `etcdctl snapshot save` writes it (mode 0600, SHA-256 appended).",
      check: async (ctx) => checkSnapshot(ctx, ctx.params["SNAP_MEMBER"]),
      hints: [
        "`etcdctl snapshot save` refuses several endpoints: point ETCDCTL_ENDPOINTS at one member for that one command.",
        "`lab ep <member>` prints a member's client URL; `lab param SNAP_MEMBER` names the member this task wants.",
        "ETCDCTL_ENDPOINTS=$(lab ep $(lab param SNAP_MEMBER)) etcdctl snapshot save ~/backups/etcd-snapshot-$(date +%Y%m%d-%H%M%S).db",
      ],
      solution: ["mkdir -p ~/backups", saveCmd("$(lab param SNAP_MEMBER)")],
      antiSolutions: [
        {
          name: "copied-db-file",
          commands: ["mkdir -p ~/backups", "cp ~/masters/m1/var/lib/etcd/member/snap/db ~/backups/copied.db"],
          message: "has no appended SHA-256",
        },
      ],
    },
    {
      id: "forensics",
      title: "Read a token out of a raw db copy",
      goal: "The value of `/lab/forensics/token` as `~/backups/raw-copy.db` holds it, in `~/answers/forensics-token`.",
      check: checkForensics,
      hints: [
        "raw-copy.db is a member's db file, not a snapshot: `etcdutl snapshot restore` refuses it unless you pass --skip-hash-check.",
        "Restore it into a new data dir (any --name, a peer URL from `lab free-port`), start an `etcd` on that data dir with free ports, and read the key from it.",
        "etcdctl get /lab/forensics/token --print-value-only, with ETCDCTL_ENDPOINTS pointing at your scratch etcd; stop it afterwards.",
      ],
      solution: [
        "P1=$(lab free-port); P2=$(lab free-port); rm -rf ~/scratch/forensics; mkdir -p ~/scratch ~/answers",
        "etcdutl snapshot restore ~/backups/raw-copy.db --skip-hash-check --data-dir ~/scratch/forensics --name f1 --initial-cluster f1=http://127.0.0.1:$P2 --initial-advertise-peer-urls http://127.0.0.1:$P2",
        "etcd --name f1 --data-dir ~/scratch/forensics --listen-client-urls http://127.0.0.1:$P1 --advertise-client-urls http://127.0.0.1:$P1 --listen-peer-urls http://127.0.0.1:$P2 --initial-advertise-peer-urls http://127.0.0.1:$P2 --initial-cluster f1=http://127.0.0.1:$P2 >~/scratch/forensics.log 2>&1 &",
        "until ETCDCTL_ENDPOINTS=http://127.0.0.1:$P1 etcdctl endpoint health >/dev/null 2>&1; do sleep 0.5; done",
        `ETCDCTL_ENDPOINTS=http://127.0.0.1:$P1 etcdctl get /lab/forensics/token --print-value-only > ~/${answerFile.slice("home/".length)}`,
        "kill %1; wait",
      ],
    },
    {
      id: "off-cluster",
      title: "Encrypt a snapshot and ship it off the cluster",
      goal: "The newest object in bucket `k8s-etcd-snapshots` is a snapshot encrypted to `~/keys/backup.pub`; no plaintext snapshot in the bucket or in `~/backups`.",
      check: async (ctx) => checkOffCluster(ctx, bucketOf(ctx)),
      hints: [
        '`age -r "$(cat ~/keys/backup.pub)" -o FILE.age FILE` encrypts to the backup key; only the engine holds the identity that opens it.',
        "The rclone remote `backup` is configured by the RCLONE_CONFIG_BACKUP_* variables. Your key may only write: rclone's checks before and after the upload read, so switch them off with --no-check-dest --s3-no-check-bucket --s3-no-head.",
        "Remove the plaintext snapshots from ~/backups once the encrypted copy is uploaded (raw-copy.db may stay).",
      ],
      solution: [
        "F=etcd-$(date -u +%Y%m%dT%H%M%SZ).db; ETCDCTL_ENDPOINTS=$(lab ep m1) etcdctl snapshot save ~/backups/$F",
        `age -r ${recipient} -o ~/backups/$F.age ~/backups/$F && rm -f ~/backups/etcd-*.db`,
        `rclone copyto ${rcloneFlags} ~/backups/$F.age backup:k8s-etcd-snapshots/$F.age`,
      ],
      antiSolutions: [
        {
          name: "plaintext-upload",
          commands: [
            "F=etcd-$(date -u +%Y%m%dT%H%M%SZ).db; ETCDCTL_ENDPOINTS=$(lab ep m1) etcdctl snapshot save ~/backups/$F",
            `rclone copyto ${rcloneFlags} ~/backups/$F backup:k8s-etcd-snapshots/$F && rm -f ~/backups/etcd-*.db`,
          ],
          message: "is a plaintext snapshot",
        },
      ],
    },
    {
      id: "control-plane",
      title: "Back up the pki and the EncryptionConfiguration, apart",
      goal: "Two encrypted objects in the bucket: a tar of `/etc/kubernetes/pki` with the kubeadm config, and the EncryptionConfiguration (`/etc/kubernetes/encryption-config.yaml`) on its own.",
      check: async (ctx) => checkControlPlane(ctx, bucketOf(ctx)),
      hints: [
        "A master's /etc/kubernetes is ~/masters/m1/etc/kubernetes here: `tar czf - -C ~/masters/m1/etc/kubernetes pki kubeadm-config.yaml` writes the archive to stdout.",
        'Pipe it through `age -r "$(cat ~/keys/backup.pub)"` into `rclone rcat backup:k8s-etcd-snapshots/NAME`.',
        "The EncryptionConfiguration opens every Secret in a snapshot: encrypt it and upload it as an object of its own.",
      ],
      solution: [
        `tar czf - -C ~/masters/m1/etc/kubernetes pki kubeadm-config.yaml | age -r ${recipient} | rclone rcat ${rcloneFlags} backup:k8s-etcd-snapshots/pki-$(date -u +%Y%m%dT%H%M%SZ).tar.gz.age`,
        `age -r ${recipient} ~/masters/m1/etc/kubernetes/encryption-config.yaml | rclone rcat ${rcloneFlags} backup:k8s-etcd-snapshots/encryption-config-$(date -u +%Y%m%dT%H%M%SZ).yaml.age`,
      ],
    },
    {
      id: "cronjob",
      title: "Automate it with a CronJob, and run it once",
      goal: "CronJob `etcd-backup/etcd-snapshot` (hourly at a fixed minute, Forbid, on a master with only `ca.crt` and the healthcheck-client pair) and one Job from it completed, with a new object in the bucket.",
      check: async (ctx) => checkCronJob(ctx.kube as KubeReader | undefined, bucketOf(ctx)),
      hints: [
        "Start from the manifest on the page: a namespace labelled pod-security.kubernetes.io/enforce: privileged, the S3 Secret created with kubectl, and the CronJob.",
        "The simulated kubelet runs the containers' commands: the etcd image has etcdctl (no shell), the backup image has sh, age and rclone. hostPath volumes are the master's files under ~/masters/<m>/.",
        "kubectl -n etcd-backup create job --from=cronjob/etcd-snapshot etcd-snapshot-manual, then kubectl -n etcd-backup wait --for=condition=complete job/etcd-snapshot-manual.",
      ],
      solution: [
        `cat > ~/etcd-backup-cronjob.yaml <<'EOF'\n${cronJobManifest}EOF`,
        'sed -i "s|ETCD_ENDPOINT|$(lab ep m1)|; s|AGE_RECIPIENT_KEY|$(cat ~/keys/backup.pub)|; s|S3_ENDPOINT|$RCLONE_CONFIG_BACKUP_ENDPOINT|" ~/etcd-backup-cronjob.yaml',
        "kubectl apply -f ~/etcd-backup-cronjob.yaml",
        'kubectl -n etcd-backup create secret generic etcd-backup-s3 --from-literal=RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID="$RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID" --from-literal=RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY="$RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY"',
        "kubectl -n etcd-backup create job --from=cronjob/etcd-snapshot etcd-snapshot-manual",
        "kubectl -n etcd-backup wait --for=condition=complete --timeout=100s job/etcd-snapshot-manual",
        "until kubectl -n etcd-backup get cronjob etcd-snapshot -o jsonpath='{.status.lastSuccessfulTime}' | grep -q .; do sleep 1; done",
      ],
    },
  ],
});
