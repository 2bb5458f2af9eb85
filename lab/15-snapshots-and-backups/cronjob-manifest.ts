// The backup CronJob of lesson 15, as the lesson page shows it: 002's design adapted to the lab. ETCD_ENDPOINT,
// AGE_RECIPIENT_KEY and S3_ENDPOINT are filled in by the solution (sed) from `lab ep m1`, ~/keys/backup.pub and
// $RCLONE_CONFIG_BACKUP_ENDPOINT; the lab's members serve plain http (no TLS), which the page says.

/** cronJobManifest is the Namespace, ConfigMap and CronJob (the S3 Secret is created with kubectl). */
export const cronJobManifest = `apiVersion: v1
kind: Namespace
metadata:
  name: etcd-backup
  labels:
    pod-security.kubernetes.io/enforce: privileged
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: etcd-backup
  namespace: etcd-backup
data:
  AGE_RECIPIENT: AGE_RECIPIENT_KEY
  RCLONE_CONFIG_BACKUP_TYPE: s3
  RCLONE_CONFIG_BACKUP_PROVIDER: Other
  RCLONE_CONFIG_BACKUP_ENDPOINT: S3_ENDPOINT
  RCLONE_CONFIG_BACKUP_REGION: us-east-1
  BUCKET: k8s-etcd-snapshots
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: etcd-snapshot
  namespace: etcd-backup
spec:
  schedule: "17 * * * *"
  timeZone: Etc/UTC
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 600
  successfulJobsHistoryLimit: 3
  failedJobsHistoryLimit: 3
  jobTemplate:
    spec:
      backoffLimit: 2
      activeDeadlineSeconds: 900
      template:
        spec:
          restartPolicy: Never
          hostNetwork: true
          automountServiceAccountToken: false
          nodeSelector:
            node-role.kubernetes.io/control-plane: ""
          tolerations:
          - key: node-role.kubernetes.io/control-plane
            operator: Exists
            effect: NoSchedule
          initContainers:
          - name: snapshot
            image: registry.k8s.io/etcd:3.6.8-0
            command:
            - etcdctl
            - --endpoints=ETCD_ENDPOINT
            - snapshot
            - save
            - /work/etcd.db
            securityContext:
              runAsUser: 0
              allowPrivilegeEscalation: false
              readOnlyRootFilesystem: true
              capabilities:
                drop: ["ALL"]
            volumeMounts:
            - { name: etcd-ca, mountPath: /pki/ca.crt, readOnly: true }
            - { name: etcd-client, mountPath: /pki/client.crt, readOnly: true }
            - { name: etcd-key, mountPath: /pki/client.key, readOnly: true }
            - { name: work, mountPath: /work }
          containers:
          - name: upload
            image: ghcr.io/example/etcd-backup:1.0
            command: ["/bin/sh", "-ec"]
            args:
            - |
              name="etcd-$(date -u +%Y%m%dT%H%M%SZ).db.age"
              age -r "$AGE_RECIPIENT" -o "/work/$name" /work/etcd.db
              rm -f /work/etcd.db
              rclone copyto --no-check-dest --s3-no-check-bucket --s3-no-head "/work/$name" "backup:$BUCKET/$name"
              echo "uploaded $name"
            envFrom:
            - configMapRef: { name: etcd-backup }
            - secretRef: { name: etcd-backup-s3 }
            securityContext:
              runAsUser: 0
              allowPrivilegeEscalation: false
              readOnlyRootFilesystem: true
              capabilities:
                drop: ["ALL"]
            volumeMounts:
            - { name: work, mountPath: /work }
          volumes:
          - name: etcd-ca
            hostPath: { path: /etc/kubernetes/pki/etcd/ca.crt, type: File }
          - name: etcd-client
            hostPath: { path: /etc/kubernetes/pki/etcd/healthcheck-client.crt, type: File }
          - name: etcd-key
            hostPath: { path: /etc/kubernetes/pki/etcd/healthcheck-client.key, type: File }
          - name: work
            emptyDir: { sizeLimit: 256Mi }
`;
