// Tests of a backup lab's kit: the PKI reads with openssl as kubeadm's does (subjects, chains, key types,
// usages) and is made quickly; masters share the CAs; the backup key's identity stays out of the workspace and
// decrypts what the recipient encrypts; the bucket is readable through the checks' view.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Encrypter } from "age-encryption";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackupKit } from "./backup-kit.ts";

const openssl = (args: string[]) => execFileSync("openssl", args, { encoding: "utf8" });
const hasOpenssl = (() => {
  try {
    openssl(["version"]);
    return true;
  } catch {
    return false;
  }
})();

let home = "";
let kit: BackupKit;
let bootMs = 0;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "backup-kit-"));
  kit = new BackupKit({ s3: true, backupKey: true, pki: true });
  const t0 = performance.now();
  await kit.boot({
    home,
    masters: ["m1", "m2", "m3"],
    kubernetesVersion: "v1.32.4",
    encryptionConfig: "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n",
  });
  bootMs = performance.now() - t0;
});

afterAll(async () => {
  await kit.stop();
  rmSync(home, { recursive: true, force: true });
});

const pki = (m: string, f: string) => join(home, "masters", m, "etc", "kubernetes", "pki", f);

describe("BackupKit", () => {
  it("writes kubeadm's pki files, one CA set for all masters (the boot time is logged, not asserted)", () => {
    const names = [
      "ca.crt",
      "ca.key",
      "sa.key",
      "sa.pub",
      "front-proxy-ca.crt",
      "front-proxy-ca.key",
      "etcd/ca.crt",
      "etcd/ca.key",
    ];
    for (const m of ["m1", "m2", "m3"]) {
      for (const n of [
        ...names,
        "etcd/healthcheck-client.crt",
        "etcd/healthcheck-client.key",
        "apiserver-etcd-client.crt",
        "apiserver-etcd-client.key",
      ]) {
        expect(existsSync(pki(m, n)), `${m} ${n}`).toBe(true);
      }
      expect(readFileSync(pki(m, "ca.crt"), "utf8")).toBe(readFileSync(pki("m1", "ca.crt"), "utf8"));
      expect(statSync(pki(m, "ca.key")).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(pki("m1", "etcd/healthcheck-client.crt"), "utf8")).not.toBe(
      readFileSync(pki("m2", "etcd/healthcheck-client.crt"), "utf8"),
    );
    expect(readFileSync(pki("m1", "ca.key"), "utf8")).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
    expect(readFileSync(pki("m1", "sa.key"), "utf8")).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
    expect(readFileSync(pki("m1", "sa.pub"), "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const kubeadm = readFileSync(join(home, "masters/m1/etc/kubernetes/kubeadm-config.yaml"), "utf8");
    expect(kubeadm).toMatch(/^apiVersion: kubeadm.k8s.io\/v1beta4\nkind: ClusterConfiguration\n/);
    expect(kubeadm).toContain("encryption-provider-config");
    expect(readFileSync(join(home, "masters/m2/etc/kubernetes/encryption-config.yaml"), "utf8")).toContain(
      "EncryptionConfiguration",
    );
    console.log(`backup kit boot (PKI for 3 masters, age key, S3 endpoint): ${Math.round(bootMs)} ms`);
  });

  it.runIf(hasOpenssl)("is read by openssl: subjects, issuers, chains and usages", () => {
    expect(openssl(["x509", "-noout", "-subject", "-in", pki("m1", "ca.crt")])).toBe("subject=CN = kubernetes\n");
    expect(openssl(["x509", "-noout", "-subject", "-in", pki("m1", "front-proxy-ca.crt")])).toBe(
      "subject=CN = front-proxy-ca\n",
    );
    expect(openssl(["x509", "-noout", "-subject", "-in", pki("m1", "etcd/ca.crt")])).toBe("subject=CN = etcd-ca\n");
    expect(openssl(["x509", "-noout", "-subject", "-issuer", "-in", pki("m1", "etcd/healthcheck-client.crt")])).toBe(
      "subject=CN = kube-etcd-healthcheck-client\nissuer=CN = etcd-ca\n",
    );
    expect(openssl(["x509", "-noout", "-subject", "-in", pki("m1", "apiserver-etcd-client.crt")])).toBe(
      "subject=CN = kube-apiserver-etcd-client\n",
    );
    const text = openssl(["x509", "-noout", "-text", "-in", pki("m1", "apiserver-etcd-client.crt")]);
    expect(text).toContain("TLS Web Client Authentication");
    expect(text).toContain("ecdsa-with-SHA256");
    const ca = openssl(["x509", "-noout", "-text", "-in", pki("m1", "ca.crt")]);
    expect(ca).toContain("Digital Signature, Key Encipherment, Certificate Sign");
    expect(ca).toContain("CA:TRUE");
    for (const leaf of ["etcd/healthcheck-client.crt", "apiserver-etcd-client.crt"]) {
      expect(openssl(["verify", "-CAfile", pki("m1", "etcd/ca.crt"), pki("m3", leaf)])).toContain(": OK");
    }
    // Each key matches its certificate.
    const pub = (args: string[]) => openssl(args);
    expect(pub(["pkey", "-in", pki("m1", "etcd/ca.key"), "-pubout"])).toBe(
      pub(["x509", "-in", pki("m1", "etcd/ca.crt"), "-noout", "-pubkey"]),
    );
    expect(pub(["pkey", "-in", pki("m1", "sa.key"), "-pubout"])).toBe(readFileSync(pki("m1", "sa.pub"), "utf8"));
    expect(openssl(["rsa", "-in", pki("m1", "sa.key"), "-noout", "-text"])).toContain("Private-Key: (2048 bit");
  });

  it("keeps the backup identity out of the workspace and decrypts what its recipient encrypts", async () => {
    const recipient = readFileSync(join(home, "keys/backup.pub"), "utf8").trim();
    expect(recipient).toMatch(/^age1[0-9a-z]{58}$/);
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : [readFileSync(join(d, e.name), "utf8")],
      );
    expect(walk(home).some((t) => t.includes("AGE-SECRET-KEY-"))).toBe(false);
    const key = kit.key();
    expect(key?.recipient).toBe(recipient);
    const e = new Encrypter();
    e.addRecipient(recipient);
    const sealed = await e.encrypt("snapshot bytes");
    expect(Buffer.from((await key?.decrypt(sealed)) ?? []).toString()).toBe("snapshot bytes");
    const other = new Encrypter();
    other.addRecipient("age1zcn9yzc4lgyj82d35nrc8w6atx30qr6hy3sk8v4ru4qhrck83q2s56gzkm");
    await expect(key?.decrypt(await other.encrypt("x"))).rejects.toThrow(/no identity matched/);
  });

  it("gives shells the learner's rclone remote and checks the bucket", async () => {
    const env = kit.shellEnv();
    expect(Object.keys(env).sort()).toEqual([
      "RCLONE_CONFIG_BACKUP_ACCESS_KEY_ID",
      "RCLONE_CONFIG_BACKUP_ENDPOINT",
      "RCLONE_CONFIG_BACKUP_PROVIDER",
      "RCLONE_CONFIG_BACKUP_SECRET_ACCESS_KEY",
      "RCLONE_CONFIG_BACKUP_TYPE",
    ]);
    const bucket = kit.bucket();
    expect(bucket?.name).toBe("k8s-etcd-snapshots");
    expect(bucket?.list()).toEqual([]);
    expect(await bucket?.get("none")).toBeUndefined();
  });
});
