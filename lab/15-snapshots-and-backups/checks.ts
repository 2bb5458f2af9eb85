// The checks of lab 15, graded from the artefacts themselves: snapshot files in ~/backups (mode, appended
// hash, etcdutl's view, which member served them, from the members' own log lines in the event log), the
// forensics answer, the objects in the lab's S3 bucket (read with the engine's reader key and decrypted with
// the engine's age identity), and the CronJob in the cluster with the Jobs it ran.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { CheckContext, CheckResult, LabEvent } from "../lab-format.ts";
import { ageHeader, appendedHash, isAge, isDatabase, tarEntries } from "./snapshot-file.ts";

/** backupsDir is where the learner keeps snapshots (workspace-relative). */
export const backupsDir = "home/backups";
/** rawCopy is the copied member/snap/db that setup leaves for task 2. */
export const rawCopy = `${backupsDir}/raw-copy.db`;
/** answerFile is where task 2's token goes. */
export const answerFile = "home/answers/forensics-token";
/** setupFile records what setup did (start revision, the token's hash): no answer in it. */
export const setupFile = ".lab/15-setup.json";

/** SetupRecord is what setup leaves for the checks. */
export interface SetupRecord {
  /** startRev is the cluster's revision when the lab was set up: snapshots must be at least as new. */
  startRev: number;
  /** tokenSha256 is the SHA-256 (hex) of the token only the raw copy holds. */
  tokenSha256: string;
}

const pass = (message: string): CheckResult => ({ passed: true, message });
const fail = (message: string): CheckResult => ({ passed: false, message });

/** setupRecord reads what setup recorded (null when the lab was not set up). */
export async function setupRecord(ctx: CheckContext): Promise<SetupRecord | null> {
  const text = await ctx.files.read(setupFile);
  return text ? (JSON.parse(text) as SetupRecord) : null;
}

/** servedBy lists the members whose snapshot.served events lie within ±10 s of `atMs`. */
export function servedBy(events: readonly LabEvent[], atMs: number): string[] {
  const members = new Set<string>();
  for (const e of events as readonly (LabEvent & { member?: string })[]) {
    if ((e.type as string) !== "snapshot.served" || !e.member) continue;
    if (Math.abs(e.at - atMs) <= 10_000) members.add(e.member);
  }
  return [...members].sort();
}

/** snapshotStatus runs `etcdutl snapshot status -w json` on a file (absolute path): its revision, or an error. */
export async function snapshotStatus(
  ctx: CheckContext,
  path: string,
): Promise<{ revision: number; totalKey: number } | { error: string }> {
  let r = await ctx.tool("etcdutl", ["snapshot", "status", path, "-w", "json"]);
  // Our etcdutl reads our store's files; on the real-etcd backend the files are bbolt, which etcd 3.4's own
  // etcdctl reads (3.4 still has `snapshot status`; 3.6 moved it to etcdutl).
  if (r.code !== 0 && ctx.backend === "real") r = await realStatus(path);
  if (r.code !== 0) return { error: (r.stderr || r.stdout).trim().split("\n").pop() ?? "" };
  try {
    const st = JSON.parse(r.stdout) as { revision: number; totalKey: number };
    return { revision: st.revision, totalKey: st.totalKey };
  } catch {
    return { error: `etcdutl printed ${JSON.stringify(r.stdout.slice(0, 80))}` };
  }
}

/** realStatus runs etcd 3.4's `etcdctl snapshot status` (Debian's /usr/bin/etcdctl). */
function realStatus(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "/usr/bin/etcdctl",
      ["snapshot", "status", path, "-w", "json"],
      { env: { PATH: "/usr/bin:/bin", ETCDCTL_API: "3" }, timeout: 10_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** statusOfBytes writes bytes to a private temporary file and reads its snapshot status. */
async function statusOfBytes(ctx: CheckContext, b: Uint8Array): Promise<{ revision: number } | { error: string }> {
  const dir = mkdtempSync(join(tmpdir(), "lab15-check-"));
  try {
    const f = join(dir, "snapshot.db");
    writeFileSync(f, b, { mode: 0o600 });
    return await snapshotStatus(ctx, f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function describeMode(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, "0");
}

/** checkSnapshot is task 1: a real snapshot in ~/backups, from one member (the one asked for, if any). */
export async function checkSnapshot(ctx: CheckContext, member?: string): Promise<CheckResult> {
  const rec = await setupRecord(ctx);
  if (!rec) return fail("The lab has not been set up: reset it (lab reset).");
  const names = (await ctx.files.list(backupsDir)).filter((n) => n.endsWith(".db") && `${backupsDir}/${n}` !== rawCopy);
  if (names.length === 0)
    return fail("There is no *.db file in ~/backups yet: save a snapshot there with etcdctl snapshot save.");
  const files = names
    .map((n) => ({ name: n, st: statSync(join(ctx.files.root, backupsDir, n)) }))
    .filter((f) => f.st.isFile())
    .sort((a, b) => b.st.mtimeMs - a.st.mtimeMs);
  const reasons: string[] = [];
  for (const f of files) {
    const rel = `${backupsDir}/${f.name}`;
    const bytes = (await ctx.files.bytes(rel)) ?? new Uint8Array();
    const hash = appendedHash(bytes);
    if (hash === "absent") {
      reasons.push(
        `${f.name} has no appended SHA-256 (its size, ${bytes.length}, is not 32 past a multiple of 512): a copied db file is not a snapshot.`,
      );
      continue;
    }
    if (hash === "mismatch") {
      reasons.push(`${f.name}'s last 32 bytes are not the SHA-256 of the rest: the file was changed or cut.`);
      continue;
    }
    if ((f.st.mode & 0o777) !== 0o600) {
      reasons.push(
        `${f.name} has mode ${describeMode(f.st.mode)}; snapshot save writes 0600 (it holds every Secret): keep it that way.`,
      );
      continue;
    }
    const st = await snapshotStatus(ctx, join(ctx.files.root, rel));
    if ("error" in st) {
      reasons.push(`etcdutl snapshot status cannot read ${f.name}: ${st.error}`);
      continue;
    }
    if (st.revision < rec.startRev) {
      reasons.push(
        `${f.name} is at revision ${st.revision}, older than this lab's start (${rec.startRev}): take a new one.`,
      );
      continue;
    }
    const served = servedBy(ctx.events, f.st.mtimeMs);
    if (served.length === 0) {
      reasons.push(
        `No member served a snapshot around ${new Date(f.st.mtimeMs).toISOString()}, when ${f.name} was written.`,
      );
      continue;
    }
    if (served.length > 1) {
      reasons.push(`${served.join(" and ")} all served snapshots around when ${f.name} was written: ask one member.`);
      continue;
    }
    if (member && served[0] !== member) {
      reasons.push(
        `${f.name} came from ${served[0]}; this task asks for a snapshot from ${member}: ETCDCTL_ENDPOINTS=$(lab ep ${member}) etcdctl snapshot save ...`,
      );
      continue;
    }
    return pass(
      `${f.name}: mode 0600, SHA-256 appended and matching, revision ${st.revision} (${st.totalKey} keys), served by ${served[0]}.`,
    );
  }
  return fail(reasons[0] ?? "No snapshot in ~/backups passes.");
}

/** checkForensics is task 2: the token read from the raw copy, in ~/answers/forensics-token. */
export async function checkForensics(ctx: CheckContext): Promise<CheckResult> {
  const rec = await setupRecord(ctx);
  if (!rec) return fail("The lab has not been set up: reset it (lab reset).");
  const text = await ctx.files.read(answerFile);
  if (text === null)
    return fail(
      "~/answers/forensics-token does not exist yet: put the value of /lab/forensics/token from raw-copy.db there.",
    );
  const answer = text.trim();
  if (answer === "") return fail("~/answers/forensics-token is empty: the key's value goes there.");
  if (createHash("sha256").update(answer).digest("hex") === rec.tokenSha256)
    return pass(
      "Right: that is /lab/forensics/token as the raw copy holds it, read from a restore of a db without a hash.",
    );
  if (answer.includes("/lab/forensics/token"))
    return fail("The answer holds the key's name too: write only its value (get --print-value-only).");
  return fail(
    `"${answer.slice(0, 40)}" is not the latest value of /lab/forensics/token in raw-copy.db (strings shows older versions too: restore it and ask etcd).`,
  );
}

/** BucketObject is one object (its latest version) in the lab's bucket. */
export interface BucketObject {
  key: string;
  lastModifiedMs: number;
}

/** BucketAccess is how a check reads the bucket (the engine's reader key) and decrypts (its age identity). */
export interface BucketAccess {
  list(): Promise<BucketObject[]>;
  get(key: string): Promise<Uint8Array | undefined>;
  /** decrypt opens an age file for the engine's identity (null: not encrypted to ~/keys/backup.pub). */
  decrypt(data: Uint8Array): Promise<Uint8Array | null>;
}

/** plaintextSnapshots names the plaintext snapshots (bbolt files) in ~/backups, raw-copy.db aside. */
async function plaintextInBackups(ctx: CheckContext): Promise<string[]> {
  const out: string[] = [];
  for (const n of await ctx.files.list(backupsDir)) {
    const rel = `${backupsDir}/${n}`;
    if (rel === rawCopy) continue;
    const b = await ctx.files.bytes(rel).catch(() => null);
    if (b && isDatabase(b)) out.push(n);
  }
  return out;
}

/** checkOffCluster is task 3: the newest object is an encrypted, valid, recent snapshot; no plaintext anywhere. */
export async function checkOffCluster(ctx: CheckContext, bucket: BucketAccess | null): Promise<CheckResult> {
  const rec = await setupRecord(ctx);
  if (!rec) return fail("The lab has not been set up: reset it (lab reset).");
  if (!bucket) return fail("This session has no S3 endpoint: reset the lab.");
  const objects = (await bucket.list()).sort((a, b) => b.lastModifiedMs - a.lastModifiedMs);
  for (const o of objects) {
    const b = await bucket.get(o.key);
    if (b && isDatabase(b))
      return fail(
        `${o.key} in the bucket is a plaintext snapshot: every Secret is readable in it. Encrypt before upload.`,
      );
  }
  const plain = await plaintextInBackups(ctx);
  if (plain.length)
    return fail(
      `~/backups/${plain[0]} is a plaintext snapshot: once the encrypted copy is uploaded, remove it (rm -f).`,
    );
  const snapshots: string[] = [];
  for (const o of objects) {
    const b = await bucket.get(o.key);
    if (!b || !isAge(b)) continue;
    const opened = await bucket.decrypt(b);
    if (opened && isDatabase(opened)) {
      snapshots.push(o.key);
      if (appendedHash(opened) !== "ok")
        return fail(`${o.key} decrypts to a db without a valid appended hash: upload a snapshot, not a copied db.`);
      const st = await statusOfBytes(ctx, opened);
      if ("error" in st) return fail(`${o.key} decrypts, but etcdutl cannot read it: ${st.error}`);
      if (st.revision < rec.startRev)
        return fail(`${o.key} holds revision ${st.revision}, older than this lab's start (${rec.startRev}).`);
      return pass(
        `${o.key}: ${ageHeader}, decrypts to a valid snapshot at revision ${st.revision}; no plaintext left.`,
      );
    }
    if (!opened) return fail(`${o.key} is age-encrypted, but not to ~/keys/backup.pub: use that recipient (age -r).`);
  }
  if (objects.length === 0)
    return fail("The bucket k8s-etcd-snapshots is empty: upload an encrypted snapshot with rclone.");
  return fail(`None of the ${objects.length} object(s) in the bucket is an age-encrypted snapshot.`);
}

/** pkiFiles are what the pki archive must hold (path suffixes). */
export const pkiFiles = [
  "pki/ca.crt",
  "pki/ca.key",
  "pki/sa.key",
  "pki/sa.pub",
  "pki/front-proxy-ca.crt",
  "pki/front-proxy-ca.key",
  "pki/etcd/ca.crt",
  "pki/etcd/ca.key",
];

/** contents of a decrypted object: its files (a tar, gzip or not) or itself as one file. */
function filesOf(b: Uint8Array): { name: string; data: Uint8Array }[] {
  let raw = b;
  if (raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      raw = gunzipSync(raw);
    } catch {
      return [{ name: "", data: b }];
    }
  }
  return tarEntries(raw) ?? [{ name: "", data: raw }];
}

const text = (d: Uint8Array) => Buffer.from(d).toString("utf8");
const hasKind = (d: Uint8Array, kind: string) => new RegExp(`^kind:\\s*${kind}\\s*$`, "m").test(text(d));

/** checkControlPlane is task 4: a pki archive and, apart, the EncryptionConfiguration, both encrypted. */
export async function checkControlPlane(ctx: CheckContext, bucket: BucketAccess | null): Promise<CheckResult> {
  if (!bucket) return fail("This session has no S3 endpoint: reset the lab.");
  let pki: string | null = null;
  let missing: string[] | null = null;
  let encryption: string | null = null;
  for (const o of await bucket.list()) {
    const b = await bucket.get(o.key);
    if (!b) continue;
    if (!isAge(b)) {
      if (filesOf(b).some((f) => hasKind(f.data, "EncryptionConfiguration") || f.name.endsWith(".key")))
        return fail(`${o.key} is not encrypted, and it holds keys: everything that leaves the node goes through age.`);
      continue;
    }
    const opened = await bucket.decrypt(b);
    if (!opened) continue;
    const files = filesOf(opened);
    const names = files.map((f) => f.name.replace(/^\.\//, ""));
    const hasEnc = files.some((f) => hasKind(f.data, "EncryptionConfiguration"));
    const hasSnap = files.some((f) => isDatabase(f.data));
    const hasPki = names.some((n) => /(^|\/)pki\//.test(n));
    if (hasEnc && (hasSnap || hasPki))
      return fail(
        `${o.key} holds the EncryptionConfiguration together with ${hasSnap ? "a snapshot" : "the pki"}: keep the key that opens the Secrets in an object of its own.`,
      );
    if (hasEnc) encryption = o.key;
    if (hasPki) {
      const lack = pkiFiles.filter((p) => !names.some((n) => n === p || n.endsWith(`/${p}`)));
      const kubeadm = files.some((f) => hasKind(f.data, "ClusterConfiguration"));
      if (!kubeadm) lack.push("the kubeadm config (kind: ClusterConfiguration)");
      if (lack.length === 0) pki = o.key;
      else if (!missing || lack.length < missing.length) missing = lack;
    }
  }
  if (!pki && missing) return fail(`The pki archive lacks ${missing.join(", ")}.`);
  if (!pki) return fail("No object in the bucket decrypts to a tar of /etc/kubernetes/pki with the kubeadm config.");
  if (!encryption)
    return fail(`${pki} holds the pki; now upload the EncryptionConfiguration, encrypted, as its own object.`);
  return pass(
    `${pki} holds the pki and the kubeadm config; ${encryption} holds the EncryptionConfiguration; both encrypted.`,
  );
}
