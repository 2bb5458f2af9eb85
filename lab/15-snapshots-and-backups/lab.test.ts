import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { CheckContext, LabEvent, WorkspaceFiles } from "../lab-format.ts";
import { fakeCheckContext, type FakeCheckOptions } from "../testing.ts";
import {
  checkControlPlane,
  checkForensics,
  checkOffCluster,
  checkSnapshot,
  pkiFiles,
  setupFile,
  type BucketAccess,
} from "./checks.ts";
import { checkCronJob, cronJobName, cronJobNamespace, type KubeReader, type ObjectLike } from "./cronjob-check.ts";
import { parse } from "yaml";
import { cronJobManifest } from "./cronjob-manifest.ts";
import { appendedHash, boltMagic, isDatabase, tarEntries } from "./snapshot-file.ts";

let roots: string[] = [];
afterEach(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
  roots = [];
});

/** workspace makes a temporary workspace with the setup record and returns a WorkspaceFiles over it. */
function workspace(record = { startRev: 100, tokenSha256: sha("the-token") }): { root: string; files: WorkspaceFiles } {
  const root = mkdtempSync(join(tmpdir(), "lab15-test-"));
  roots.push(root);
  mkdirSync(join(root, ".lab"), { recursive: true });
  mkdirSync(join(root, "home/backups"), { recursive: true });
  writeFileSync(join(root, setupFile), JSON.stringify(record));
  const at = (p: string) => join(root, p);
  const files: WorkspaceFiles = {
    root,
    exists: async (p) => {
      try {
        readFileSync(at(p));
        return true;
      } catch {
        return false;
      }
    },
    read: async (p) => {
      try {
        return readFileSync(at(p), "utf8");
      } catch {
        return null;
      }
    },
    bytes: async (p) => {
      try {
        return new Uint8Array(readFileSync(at(p)));
      } catch {
        return null;
      }
    },
    list: async (p) => {
      try {
        return readdirSync(at(p)).sort();
      } catch {
        return [];
      }
    },
  };
  return { root, files };
}

const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

/** bolt is a fake bbolt file: one 4 KiB page with the meta magic. */
function bolt(): Uint8Array {
  const b = new Uint8Array(4096);
  new DataView(b.buffer).setUint32(16, boltMagic, true);
  b[100] = 7;
  return b;
}

/** snapshot is a fake snapshot: a bbolt file with its SHA-256 appended. */
function snapshot(): Uint8Array {
  const db = bolt();
  return new Uint8Array([...db, ...createHash("sha256").update(db).digest()]);
}

function put(root: string, rel: string, data: Uint8Array, mode = 0o600, mtimeMs = Date.now()): void {
  writeFileSync(join(root, rel), data);
  chmodSync(join(root, rel), mode);
  utimesSync(join(root, rel), mtimeMs / 1000, mtimeMs / 1000);
}

const served = (member: string, at: number): LabEvent => ({ type: "snapshot.served", member, at, seq: 1 }) as never;

function ctxWith(o: FakeCheckOptions, revision = 120): CheckContext {
  return fakeCheckContext({
    tool: async () => ({
      code: 0,
      stdout: JSON.stringify({ hash: 1, revision, totalKey: 9, totalSize: 4096 }),
      stderr: "",
    }),
    ...o,
  });
}

describe("snapshot files", () => {
  it("tell a snapshot from a copied db, and read tar archives", () => {
    expect(isDatabase(bolt())).toBe(true);
    expect(appendedHash(bolt())).toBe("absent");
    expect(appendedHash(snapshot())).toBe("ok");
    const cut = snapshot();
    cut[10] = 1;
    expect(appendedHash(cut)).toBe("mismatch");
    expect(tarEntries(new Uint8Array(1024))).toBe(null);
    expect(tarEntries(new Uint8Array(Buffer.from("kind: EncryptionConfiguration\n")))).toBe(null);
  });
});

describe("task 1: a real snapshot", () => {
  it("fails without a file, then explains each way a file is not the snapshot asked for", async () => {
    const { root, files } = workspace();
    const at = Date.now() - 5000;
    const check = (o: FakeCheckOptions = {}, rev?: number) => checkSnapshot(ctxWith({ files, ...o }, rev), "m2");
    expect((await check()).message).toMatch(/no \*\.db file in ~\/backups/);
    put(root, "home/backups/copy.db", bolt(), 0o600, at);
    expect((await check()).message).toMatch(/copy\.db has no appended SHA-256 \(its size, 4096/);
    rmSync(join(root, "home/backups/copy.db"));
    put(root, "home/backups/s.db", snapshot(), 0o644, at);
    expect((await check()).message).toMatch(/s\.db has mode 0644; snapshot save writes 0600/);
    chmodSync(join(root, "home/backups/s.db"), 0o600);
    expect((await check({}, 50)).message).toMatch(/revision 50, older than this lab's start \(100\)/);
    expect((await check()).message).toMatch(/No member served a snapshot around/);
    expect((await check({ events: [served("m1", at + 2000), served("m3", at)] })).message).toMatch(
      /m1 and m3 all served snapshots/,
    );
    expect((await check({ events: [served("m1", at)] })).message).toMatch(
      /came from m1; this task asks for a snapshot from m2/,
    );
    const ok = await check({ events: [served("m2", at + 9000)] });
    expect(ok).toEqual({
      passed: true,
      message: expect.stringMatching(/s\.db: mode 0600, .* revision 120 .*served by m2/),
    });
    const cut = snapshot();
    cut[5] = 9;
    put(root, "home/backups/s.db", cut, 0o600, at);
    expect((await check()).message).toMatch(/last 32 bytes are not the SHA-256/);
    put(root, "home/backups/s.db", snapshot(), 0o600, at);
    const broken = ctxWith({ files, tool: async () => ({ code: 1, stdout: "", stderr: "Error: invalid database\n" }) });
    expect((await checkSnapshot(broken)).message).toMatch(/cannot read s\.db: Error: invalid database/);
    expect((await checkSnapshot(fakeCheckContext())).message).toMatch(/has not been set up/);
  });
});

describe("task 2: forensics", () => {
  it("grades the token by its hash", async () => {
    const { root, files } = workspace();
    const check = () => checkForensics(fakeCheckContext({ files }));
    expect((await check()).message).toMatch(/does not exist yet/);
    mkdirSync(join(root, "home/answers"));
    writeFileSync(join(root, "home/answers/forensics-token"), "\n");
    expect((await check()).message).toMatch(/is empty/);
    writeFileSync(join(root, "home/answers/forensics-token"), "/lab/forensics/token\nthe-token\n");
    expect((await check()).message).toMatch(/holds the key's name too/);
    writeFileSync(join(root, "home/answers/forensics-token"), "an-older-value\n");
    expect((await check()).message).toMatch(/is not the latest value .*strings shows older versions/);
    writeFileSync(join(root, "home/answers/forensics-token"), "the-token\n");
    expect((await check()).passed).toBe(true);
    expect((await checkForensics(fakeCheckContext())).message).toMatch(/has not been set up/);
  });
});

/** A bucket whose "encryption" is a prefix: age header + 0x00 + plaintext; decrypt strips it. */
function fakeBucket(objects: Record<string, { data: Uint8Array; at: number }>): BucketAccess {
  return {
    list: async () => Object.entries(objects).map(([key, o]) => ({ key, lastModifiedMs: o.at })),
    get: async (key) => objects[key]?.data,
    decrypt: async (b) => {
      const head = Buffer.from("age-encryption.org/v1\n-> X25519 test\n");
      if (!Buffer.from(b.subarray(0, head.length)).equals(head)) return null;
      return b.subarray(head.length);
    },
  };
}
const enc = (b: Uint8Array) => new Uint8Array([...Buffer.from("age-encryption.org/v1\n-> X25519 test\n"), ...b]);
const otherKey = (b: Uint8Array) => new Uint8Array([...Buffer.from("age-encryption.org/v1\n-> X25519 other\n"), ...b]);

describe("task 3: encrypted and off-cluster", () => {
  it("wants the newest object to be an encrypted, recent, valid snapshot, and no plaintext left", async () => {
    const { root, files } = workspace();
    const check = (objects: Parameters<typeof fakeBucket>[0], rev?: number) =>
      checkOffCluster(ctxWith({ files }, rev), fakeBucket(objects));
    expect((await checkOffCluster(ctxWith({ files }), null)).message).toMatch(/no S3 endpoint/);
    expect((await check({})).message).toMatch(/bucket k8s-etcd-snapshots is empty/);
    expect((await check({ "x.db": { data: snapshot(), at: 1 } })).message).toMatch(
      /x\.db in the bucket is a plaintext snapshot/,
    );
    put(root, "home/backups/raw-copy.db", bolt());
    put(root, "home/backups/etcd-1.db", snapshot());
    expect((await check({ "x.db.age": { data: enc(snapshot()), at: 1 } })).message).toMatch(
      /~\/backups\/etcd-1\.db is a plaintext snapshot/,
    );
    rmSync(join(root, "home/backups/etcd-1.db"));
    expect((await check({ "x.db.age": { data: otherKey(snapshot()), at: 1 } })).message).toMatch(
      /not to ~\/keys\/backup\.pub/,
    );
    expect((await check({ "x.db.age": { data: enc(bolt()), at: 1 } })).message).toMatch(
      /without a valid appended hash/,
    );
    expect((await check({ "x.db.age": { data: enc(snapshot()), at: 1 } }, 10)).message).toMatch(/revision 10, older/);
    expect((await check({ "notes.txt": { data: new Uint8Array([65]), at: 1 } })).message).toMatch(
      /None of the 1 object\(s\) in the bucket is an age-encrypted snapshot/,
    );
    const ok = await check({ "x.db.age": { data: enc(snapshot()), at: 1 } });
    expect(ok.passed).toBe(true);
    expect(ok.message).toMatch(/age-encryption\.org\/v1, decrypts to a valid snapshot at revision 120/);
    expect((await checkOffCluster(fakeCheckContext(), null)).message).toMatch(/has not been set up/);
  });
});

/** tar builds an uncompressed ustar archive of `files`. */
function tar(files: Record<string, string>): Uint8Array {
  const parts: Buffer[] = [];
  for (const [name, body] of Object.entries(files)) {
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write("0000644\0", 100);
    h.write(Buffer.byteLength(body).toString(8).padStart(11, "0") + "\0", 124);
    h.write("0", 156);
    h.write("ustar\0", 257);
    h.write("00", 263);
    parts.push(h, Buffer.from(body), Buffer.alloc((512 - (Buffer.byteLength(body) % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return new Uint8Array(Buffer.concat(parts));
}

const pkiTar = (omit: string[] = []) =>
  tar({
    ...Object.fromEntries(pkiFiles.filter((f) => !omit.includes(f)).map((f) => [f, "PEM"])),
    ...(omit.includes("kubeadm")
      ? {}
      : { "kubeadm-config.yaml": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" }),
  });
const encConfig = new Uint8Array(
  Buffer.from("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"),
);

describe("task 4: the pki and the EncryptionConfiguration", () => {
  it("wants both encrypted, in separate objects, with everything a restore needs", async () => {
    const check = (objects: Parameters<typeof fakeBucket>[0]) =>
      checkControlPlane(fakeCheckContext(), fakeBucket(objects));
    expect((await checkControlPlane(fakeCheckContext(), null)).message).toMatch(/no S3 endpoint/);
    expect((await check({})).message).toMatch(/No object in the bucket decrypts to a tar of \/etc\/kubernetes\/pki/);
    expect((await check({ "pki.tar": { data: pkiTar(), at: 1 } })).message).toMatch(
      /pki\.tar is not encrypted, and it holds keys/,
    );
    expect((await check({ "p.age": { data: enc(gzipSync(pkiTar(["pki/sa.key", "kubeadm"]))), at: 1 } })).message).toBe(
      "The pki archive lacks pki/sa.key, the kubeadm config (kind: ClusterConfiguration).",
    );
    expect((await check({ "p.age": { data: enc(gzipSync(pkiTar())), at: 1 } })).message).toMatch(
      /holds the pki; now upload the EncryptionConfiguration/,
    );
    const both = tar({ "pki/ca.crt": "PEM", "encryption-config.yaml": Buffer.from(encConfig).toString() });
    expect((await check({ "all.age": { data: enc(both), at: 1 } })).message).toMatch(
      /all\.age holds the EncryptionConfiguration together with the pki/,
    );
    const ok = await check({
      "p.age": { data: enc(gzipSync(pkiTar())), at: 1 },
      "e.age": { data: enc(encConfig), at: 2 },
    });
    expect(ok).toEqual({
      passed: true,
      message: expect.stringMatching(/p\.age holds the pki .* e\.age holds the EncryptionConfiguration/),
    });
  });
});

describe("task 5: the CronJob", () => {
  const docs = cronJobManifest.split(/^---$/m).map((d) => parse(d) as ObjectLike);
  const manifestCj = docs.find((d) => d["kind"] === "CronJob") as ObjectLike;
  const manifestNs = docs.find((d) => d["kind"] === "Namespace") as ObjectLike;

  function kubeWith(o: { cj?: ObjectLike | null; ns?: ObjectLike; jobs?: ObjectLike[] }): KubeReader {
    return {
      get: async (resource, _ns, name) => {
        const obj = resource === "cronjobs" ? o.cj : resource === "namespaces" ? (o.ns ?? manifestNs) : null;
        if (!obj || (resource === "cronjobs" && name !== cronJobName)) throw new Error("not found");
        return obj;
      },
      list: async () => ({ items: o.jobs ?? [] }),
    };
  }
  const cj = (patch: (spec: Record<string, never>) => void = () => undefined, status: object = {}): ObjectLike => {
    const c: ObjectLike = structuredClone({
      ...manifestCj,
      metadata: { ...manifestCj.metadata, uid: "cj-uid" },
      status,
    });
    patch(c["spec"] as Record<string, never>);
    return c;
  };
  const podSpec = (s: Record<string, never>) =>
    (s["jobTemplate"] as unknown as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
  const job = (name: string, cond: string, start = 1000, end = 5000): ObjectLike => ({
    metadata: { name, ownerReferences: [{ uid: "cj-uid", controller: true }] },
    status: {
      startTime: new Date(start).toISOString(),
      completionTime: new Date(end).toISOString(),
      conditions: [{ type: cond, status: "True" }],
    },
  });
  const check = (k: KubeReader | undefined, objects: Parameters<typeof fakeBucket>[0] = {}) =>
    checkCronJob(k, fakeBucket(objects));

  it("reads the manifest on the page as right", async () => {
    expect(manifestCj.metadata.name).toBe(cronJobName);
    expect(manifestNs.metadata.name).toBe(cronJobNamespace);
  });

  it("explains every departure from the design, then wants a completed run that uploaded", async () => {
    expect((await check(undefined)).message).toMatch(/no Kubernetes API/);
    expect((await check(kubeWith({ cj: null }))).message).toMatch(/no CronJob etcd-backup\/etcd-snapshot yet/);
    expect((await check(kubeWith({ cj: cj(), ns: { metadata: { name: "etcd-backup" } } }))).message).toMatch(
      /pod-security\.kubernetes\.io\/enforce: privileged/,
    );
    const bad: [(s: Record<string, never>) => void, RegExp][] = [
      [(s) => void ((s as Record<string, unknown>)["schedule"] = "*/5 * * * *"), /not hourly at a fixed minute/],
      [(s) => void delete (s as Record<string, unknown>)["timeZone"], /spec\.timeZone is not set/],
      [(s) => void ((s as Record<string, unknown>)["concurrencyPolicy"] = "Allow"), /concurrencyPolicy is Allow/],
      [
        (s) =>
          void delete (s["jobTemplate"] as unknown as { spec: Record<string, unknown> }).spec["activeDeadlineSeconds"],
        /activeDeadlineSeconds/,
      ],
      [(s) => void delete podSpec(s)["hostNetwork"], /hostNetwork: true/],
      [(s) => void delete podSpec(s)["nodeSelector"], /nodeSelector/],
      [(s) => void delete podSpec(s)["tolerations"], /toleration/],
      [(s) => void delete podSpec(s)["automountServiceAccountToken"], /automountServiceAccountToken: false/],
      [
        (s) =>
          void (podSpec(s)["volumes"] as unknown[]).push({
            name: "k",
            hostPath: { path: "/etc/kubernetes/pki/etcd/ca.key" },
          }),
        /ca\.key is mounted: the CA key never goes into a pod/,
      ],
      [
        (s) => void (podSpec(s)["volumes"] as unknown[]).push({ name: "p", hostPath: { path: "/etc/kubernetes/pki" } }),
        /hostPath \/etc\/kubernetes\/pki is mounted: mount exactly/,
      ],
      [(s) => void (podSpec(s)["volumes"] as unknown[]).splice(0, 1), /hostPath volumes lack ca\.crt/],
      [(s) => void (podSpec(s)["volumes"] as unknown[]).splice(3, 1), /emptyDir with a sizeLimit/],
    ];
    for (const [patch, message] of bad) expect((await check(kubeWith({ cj: cj(patch) }))).message).toMatch(message);
    expect((await check(kubeWith({ cj: cj() }))).message).toMatch(/has not run yet: .*create job --from=cronjob/);
    expect((await check(kubeWith({ cj: cj(), jobs: [job("m", "Running")] }))).message).toMatch(/has not completed yet/);
    expect((await check(kubeWith({ cj: cj(), jobs: [job("m", "Failed")] }))).message).toMatch(
      /Job m failed: read its pods' logs/,
    );
    const done = [job("m", "Complete", 100_000, 105_000)];
    expect(
      (await check(kubeWith({ cj: cj(), jobs: done }), { old: { data: enc(snapshot()), at: 100 } })).message,
    ).toMatch(/no object reached the bucket while it ran/);
    const objects = { new: { data: enc(snapshot()), at: 103_000 } };
    expect((await check(kubeWith({ cj: cj(), jobs: done }), objects)).message).toMatch(
      /lastSuccessfulTime is not set yet/,
    );
    const ok = await check(
      kubeWith({ cj: cj(undefined, { lastSuccessfulTime: "2026-12-02T04:00:00Z" }), jobs: done }),
      objects,
    );
    expect(ok.passed).toBe(true);
  });
});
