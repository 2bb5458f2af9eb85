// What a backup lab (lesson L15) gets on top of its cluster, per session: the S3 endpoint (lab-format
// `cluster.s3`), the age key the backups are encrypted to (`cluster.backupKey`: ~/keys/backup.pub in the
// workspace, the identity only in the engine's memory), and the masters' PKI and kubeadm config
// (`cluster.pki`). Keys and certificates are made once per session and written again on every boot (a lab
// reset keeps them, as a real cluster keeps its CAs); the bucket starts empty on every boot.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { armor, Decrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import type { BackupBucket, BackupKey, BucketObject } from "../types/check-context.ts";
import { ClusterPki, kubeadmConfig, type PkiFiles } from "./pki.ts";
import { LabS3 } from "../s3/lab-s3.ts";

/** BackupOptions are a lab's backup settings. */
export interface BackupOptions {
  s3: boolean;
  backupKey: boolean;
  pki: boolean;
}

/** BootInputs describe the workspace a boot writes into. */
export interface BootInputs {
  /** home is the workspace's home/ (the learner's ~). */
  home: string;
  /** masters are the members' names (m1, m2, ...): ~/masters/<m>/etc/kubernetes. */
  masters: readonly string[];
  kubernetesVersion: string;
  /** encryptionConfig is the apiserver's EncryptionConfiguration, copied to each master (null: none). */
  encryptionConfig: string | null;
  /** onWrite is told of each new object version in the bucket (boot only). */
  onWrite?: (v: BucketObject) => void;
}

/** backupKeyPath is where the learner finds the age recipient, relative to home/. */
export const backupKeyPath = "keys/backup.pub";

/** BackupKit is one session's backup environment. */
export class BackupKit {
  private identity = "";
  private recipient = "";
  private pki: ClusterPki | undefined;
  private pkiByMaster = new Map<string, PkiFiles>();
  private s3: LabS3 | undefined;

  constructor(readonly options: BackupOptions) {}

  /** any says whether the lab asked for anything. */
  get any(): boolean {
    return this.options.s3 || this.options.backupKey || this.options.pki;
  }

  /** boot (re)starts the endpoint with an empty bucket and writes the key and PKI files. */
  async boot(b: BootInputs): Promise<void> {
    await this.startEndpoint(b.onWrite);
    await this.writeFiles(b);
  }

  /**
   * startEndpoint (re)starts the S3 endpoint with an empty bucket (when the lab has one). The session calls it
   * first, before any shell starts: shells get the endpoint's address and key in their environment.
   */
  async startEndpoint(onWrite?: (v: BucketObject) => void): Promise<void> {
    if (!this.options.s3) return;
    await this.s3?.stop();
    this.s3 = await LabS3.start(onWrite ? { onWrite } : {});
  }

  /** writeFiles writes ~/keys/backup.pub and the masters' PKI (made on the first call, kept afterwards). */
  async writeFiles(b: BootInputs): Promise<void> {
    const write = (rel: string, text: string, mode = 0o644) => {
      const full = join(b.home, rel);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text, { mode });
    };
    const jobs: Promise<void>[] = [];
    if (this.options.backupKey) {
      if (this.identity === "") {
        this.identity = await generateX25519Identity();
        this.recipient = await identityToRecipient(this.identity);
      }
      write(backupKeyPath, `${this.recipient}\n`);
    }
    if (this.options.pki) {
      jobs.push(
        (async () => {
          this.pki ??= await ClusterPki.generate(Date.now());
          const pki = this.pki;
          for (const m of b.masters) {
            let files = this.pkiByMaster.get(m);
            if (!files) {
              files = await pki.forMaster();
              this.pkiByMaster.set(m, files);
            }
            const dir = `masters/${m}/etc/kubernetes`;
            for (const [name, text] of Object.entries(files)) {
              write(`${dir}/pki/${name}`, text, name.endsWith(".key") ? 0o600 : 0o644);
            }
            write(
              `${dir}/kubeadm-config.yaml`,
              kubeadmConfig({ kubernetesVersion: b.kubernetesVersion, encryptionConfig: b.encryptionConfig !== null }),
            );
            if (b.encryptionConfig !== null) write(`${dir}/encryption-config.yaml`, b.encryptionConfig, 0o600);
          }
        })(),
      );
    }
    await Promise.all(jobs);
  }

  /** shellEnv is what a shell needs: rclone's `backup:` remote with the learner's write-only key. */
  shellEnv(): Record<string, string> {
    return this.s3 ? this.s3.learnerEnv("BACKUP") : {};
  }

  /** bucket is the checks' view of the bucket (the engine's reader key), when the lab has one. */
  bucket(): BackupBucket | undefined {
    const s3 = this.s3;
    if (!s3) return undefined;
    return {
      name: s3.bucket,
      url: s3.url,
      list: (prefix) => s3.list(prefix),
      get: (key, versionId) => s3.get(key, versionId),
    };
  }

  /** key is the checks' view of the backup key: the recipient and decryption with the engine-held identity. */
  key(): BackupKey | undefined {
    if (!this.options.backupKey || this.identity === "") return undefined;
    const identity = this.identity;
    return {
      recipient: this.recipient,
      decrypt: async (data) => {
        const d = new Decrypter();
        d.addIdentity(identity);
        const text = Buffer.from(data.subarray(0, 40)).toString("latin1");
        return d.decrypt(
          text.startsWith("-----BEGIN AGE ENCRYPTED FILE-----")
            ? armor.decode(Buffer.from(data).toString("utf8"))
            : data,
        );
      },
    };
  }

  /** stop closes the endpoint (a reset's boot starts a new one). */
  async stop(): Promise<void> {
    await this.s3?.stop();
    this.s3 = undefined;
  }
}
