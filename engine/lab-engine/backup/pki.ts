// A kubeadm cluster's /etc/kubernetes/pki for the simulated masters (lesson L15 backs it up): real X.509
// certificates and keys, made with @peculiar/x509 on Node's WebCrypto, with kubeadm's file names, subjects, key
// usages and lifetimes (CAs ten years, leaves one year). One CA set per session, shared by every master as
// kubeadm's `join --control-plane` shares it; each master's leaf certificates are its own. Keys are ECDSA P-256
// (kubeadm's `encryptionAlgorithm: ECDSA-P256`), except sa.key, an RSA 2048 key as kubeadm makes it; PEM blocks
// as kubeadm writes them (`EC PRIVATE KEY`, `RSA PRIVATE KEY`, `PUBLIC KEY`, `CERTIFICATE`).

import { createPrivateKey, randomBytes, webcrypto } from "node:crypto";
import "./reflect-metadata.ts";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
/** x509Crypto is Node's WebCrypto as @peculiar/x509 types it (the DOM's Crypto). */
const x509Crypto = webcrypto as unknown as NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[1]>;
const subtle = webcrypto.subtle;
const ec = { name: "ECDSA", namedCurve: "P-256" } as const;
const sign = { name: "ECDSA", hash: "SHA-256" } as const;
const dayMs = 86_400_000;

/** PkiFiles maps a path under pki/ (ca.crt, etcd/ca.key, ...) to its PEM text. */
export type PkiFiles = Record<string, string>;

interface Ca {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return subtle.generateKey(ec, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;
}

async function keyPem(key: CryptoKey, type: "sec1" | "pkcs1"): Promise<string> {
  const der = Buffer.from(await subtle.exportKey("pkcs8", key));
  return createPrivateKey({ key: der, format: "der", type: "pkcs8" }).export({ format: "pem", type }) as string;
}

function serial(): string {
  const b = randomBytes(8);
  b[0] = (b[0] as number) & 0x7f; // a positive INTEGER
  return b.toString("hex");
}

async function newCa(cn: string, nowMs: number): Promise<Ca> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: `CN=${cn}`,
      notBefore: new Date(nowMs - 5 * 60_000),
      notAfter: new Date(nowMs + 3650 * dayMs),
      signingAlgorithm: sign,
      keys,
      extensions: [
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
          true,
        ),
        new x509.BasicConstraintsExtension(true, undefined, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, x509Crypto),
      ],
    },
    x509Crypto,
  );
  return { cert, keys };
}

async function newLeaf(ca: Ca, subject: string, usages: x509.ExtendedKeyUsage[], nowMs: number) {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject,
      issuer: ca.cert.subject,
      notBefore: new Date(nowMs - 5 * 60_000),
      notAfter: new Date(nowMs + 365 * dayMs),
      signingAlgorithm: sign,
      publicKey: keys.publicKey,
      signingKey: ca.keys.privateKey,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension(usages, false),
        new x509.BasicConstraintsExtension(false, undefined, true),
        await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey, false, x509Crypto),
      ],
    },
    x509Crypto,
  );
  return { cert: cert.toString("pem") + "\n", key: await keyPem(keys.privateKey, "sec1") };
}

/** ClusterPki is a session's CA set; `forMaster` gives one master's whole pki/ directory. */
export class ClusterPki {
  private constructor(
    private readonly cas: { kubernetes: Ca; frontProxy: Ca; etcd: Ca },
    private readonly shared: PkiFiles,
    private readonly nowMs: number,
  ) {}

  /** generate makes the CAs and the service-account key pair (about 0.1 s: RSA 2048 is most of it). */
  static async generate(nowMs: number): Promise<ClusterPki> {
    const [kubernetes, frontProxy, etcd, sa] = await Promise.all([
      newCa("kubernetes", nowMs),
      newCa("front-proxy-ca", nowMs),
      newCa("etcd-ca", nowMs),
      subtle.generateKey(
        { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
        true,
        ["sign", "verify"],
      ) as Promise<CryptoKeyPair>,
    ]);
    const spki = Buffer.from(await subtle.exportKey("spki", sa.publicKey)).toString("base64");
    const shared: PkiFiles = {
      "ca.crt": kubernetes.cert.toString("pem") + "\n",
      "ca.key": await keyPem(kubernetes.keys.privateKey, "sec1"),
      "front-proxy-ca.crt": frontProxy.cert.toString("pem") + "\n",
      "front-proxy-ca.key": await keyPem(frontProxy.keys.privateKey, "sec1"),
      "etcd/ca.crt": etcd.cert.toString("pem") + "\n",
      "etcd/ca.key": await keyPem(etcd.keys.privateKey, "sec1"),
      "sa.key": await keyPem(sa.privateKey, "pkcs1"),
      "sa.pub": `-----BEGIN PUBLIC KEY-----\n${spki.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END PUBLIC KEY-----\n`,
    };
    return new ClusterPki({ kubernetes, frontProxy, etcd }, shared, nowMs);
  }

  /** forMaster is one master's pki/: the shared CAs and sa pair, and its own etcd client certificates. */
  async forMaster(): Promise<PkiFiles> {
    const [health, apiserverEtcd] = await Promise.all([
      newLeaf(this.cas.etcd, "CN=kube-etcd-healthcheck-client", [x509.ExtendedKeyUsage.clientAuth], this.nowMs),
      newLeaf(this.cas.etcd, "CN=kube-apiserver-etcd-client", [x509.ExtendedKeyUsage.clientAuth], this.nowMs),
    ]);
    return {
      ...this.shared,
      "etcd/healthcheck-client.crt": health.cert,
      "etcd/healthcheck-client.key": health.key,
      "apiserver-etcd-client.crt": apiserverEtcd.cert,
      "apiserver-etcd-client.key": apiserverEtcd.key,
    };
  }
}

/** kubeadmConfig is a master's /etc/kubernetes/kubeadm-config.yaml (ClusterConfiguration, kubeadm v1beta4). */
export function kubeadmConfig(o: { kubernetesVersion: string; encryptionConfig: boolean }): string {
  const lines = [
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: ClusterConfiguration",
    "clusterName: kubernetes",
    `kubernetesVersion: ${o.kubernetesVersion}`,
    "controlPlaneEndpoint: k8s-api.lab.internal:6443",
    "certificatesDir: /etc/kubernetes/pki",
    "encryptionAlgorithm: ECDSA-P256",
    "etcd:",
    "  local:",
    "    dataDir: /var/lib/etcd",
    "networking:",
    "  dnsDomain: cluster.local",
    "  podSubnet: 10.244.0.0/16",
    "  serviceSubnet: 10.96.0.0/12",
  ];
  if (o.encryptionConfig) {
    lines.push(
      "apiServer:",
      "  extraArgs:",
      "  - name: encryption-provider-config",
      "    value: /etc/kubernetes/encryption-config.yaml",
      "  extraVolumes:",
      "  - name: encryption-config",
      "    hostPath: /etc/kubernetes/encryption-config.yaml",
      "    mountPath: /etc/kubernetes/encryption-config.yaml",
      "    readOnly: true",
      "    pathType: File",
    );
  }
  return lines.join("\n") + "\n";
}
