// Differential test of our rclone against the real rclone 1.60 (/usr/bin/rclone; skipped loudly when absent,
// failing under ETCD_LAB_CI=1): the same commands, each tool against its own lab S3 endpoint (so both see the
// same bucket history), must give the same exit status, standard output and log lines (timestamps, request IDs
// and elapsed times aside). The learner's write-only key is `backup:`, the engine's reader key `reader:`.
// Here because it needs both engine/tools (our rclone) and engine/lab-engine (the endpoint).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LabS3 } from "../../engine/lab-engine/s3/lab-s3.ts";
import { memoryIo, requireBinary } from "../../engine/tools/cobra/testing.ts";
import { runRclone } from "../../engine/tools/rclone/rclone.ts";

const realRclone = "/usr/bin/rclone";

let dir = "";
let realS3: LabS3;
let ourS3: LabS3;

function envFor(s3: LabS3): Record<string, string> {
  return {
    HOME: join(dir, "home"),
    PATH: "/usr/bin:/bin",
    ...s3.learnerEnv(),
    RCLONE_CONFIG_READER_TYPE: "s3",
    RCLONE_CONFIG_READER_PROVIDER: "Other",
    RCLONE_CONFIG_READER_ACCESS_KEY_ID: s3.reader.accessKeyId,
    RCLONE_CONFIG_READER_SECRET_ACCESS_KEY: s3.reader.secretAccessKey,
    RCLONE_CONFIG_READER_ENDPOINT: s3.url,
  };
}

/** normalize drops what differs between two correct runs: times, request IDs, elapsed time. */
function normalize(stderr: string): string {
  return stderr
    .replace(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} /gm, "")
    .replace(/request id: [0-9A-F]+/g, "request id: X")
    .replace(/^Elapsed time: .*$/gm, "Elapsed time: X");
}

interface Run {
  code: number;
  out: string;
  err: string;
}

/** real runs the real rclone without blocking: the endpoint it talks to is served by this process. */
function real(args: string[], stdin: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(realRclone, args, { env: envFor(realS3), cwd: dir });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out, err: normalize(err) }));
    child.stdin.end(stdin);
  });
}

async function ours(args: string[], stdin: string): Promise<Run> {
  const io = { ...memoryIo({ stdin, env: envFor(ourS3), argv: ["rclone"] }), nowMs: () => Date.now() };
  const code = await runRclone(io, args);
  return { code, out: io.out(), err: normalize(io.err()) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rclone-diff-"));
  mkdirSync(join(dir, "home"));
  mkdirSync(join(dir, "d", "sub"), { recursive: true });
  writeFileSync(join(dir, "f.txt"), "hello\n");
  writeFileSync(join(dir, "d", "one"), "1\n");
  writeFileSync(join(dir, "d", "sub", "two"), "22\n");
  writeFileSync(join(dir, "conf.ini"), "[other]\ntype = s3\nprovider = Other\n");
  [realS3, ourS3] = await Promise.all([LabS3.start(), LabS3.start()]);
});

afterAll(async () => {
  await Promise.all([realS3?.stop(), ourS3?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const p = (name: string) => join(dir, name);
const big = "0123456789abcdef".repeat(150_000 / 16);

describe.runIf(requireBinary(realRclone, "rclone 1.60"))("rclone against the real rclone 1.60", () => {
  it("behaves as rclone with a write-only key and with a reader key", { timeout: 240_000 }, async () => {
    const cases: [string[], string?][] = [
      // The learner's write-only key: each flag of 002's command line removes one failure.
      [["copyto", p("f.txt"), "backup:k8s-etcd-snapshots/f.txt"]],
      [["copyto", "--no-check-dest", p("f.txt"), "backup:k8s-etcd-snapshots/a.txt"]],
      [["copyto", "--no-check-dest", "--s3-no-check-bucket", p("f.txt"), "backup:k8s-etcd-snapshots/b.txt"]],
      [
        [
          "copyto",
          "--no-check-dest",
          "--s3-no-check-bucket",
          "--s3-no-head",
          "-v",
          p("f.txt"),
          "backup:k8s-etcd-snapshots/c.txt",
        ],
      ],
      [
        [
          "copyto",
          "-q",
          "--no-check-dest",
          "--s3-no-check-bucket",
          "--s3-no-head",
          p("f.txt"),
          "backup:k8s-etcd-snapshots/q.txt",
        ],
      ],
      [
        [
          "copy",
          "--no-check-dest",
          "--s3-no-check-bucket",
          "--s3-no-head",
          "-v",
          p("f.txt"),
          "backup:k8s-etcd-snapshots/dir",
        ],
      ],
      [["copy", "--s3-no-check-bucket", "--s3-no-head", p("d"), "backup:k8s-etcd-snapshots/d"]],
      [["copy", "--no-check-dest", "--s3-no-check-bucket", "--s3-no-head", p("d"), "backup:k8s-etcd-snapshots/d"]],
      [
        [
          "copyto",
          "--no-check-dest",
          "--s3-no-check-bucket",
          "--s3-no-head",
          p("nofile"),
          "backup:k8s-etcd-snapshots/n",
        ],
      ],
      [["rcat", "backup:k8s-etcd-snapshots/r1"], "small\n"],
      [["rcat", "--s3-no-check-bucket", "backup:k8s-etcd-snapshots/r2"], "small\n"],
      [["rcat", "--s3-no-check-bucket", "--s3-no-head", "-v", "backup:k8s-etcd-snapshots/r3"], "small\n"],
      [["rcat", "--s3-no-check-bucket", "--s3-no-head", "backup:k8s-etcd-snapshots/r4"], big],
      [["rcat", "backup:k8s-etcd-snapshots/r5"], big],
      [["ls", "backup:k8s-etcd-snapshots"]],
      [["lsf", "backup:k8s-etcd-snapshots"]],
      // Remotes and usage.
      [["copyto", p("f.txt"), "nosuch:x"]],
      [["--config", p("conf.ini"), "lsf", "nosuch:"]],
      [["lsf", "reader:no-such-bucket"]],
      [["ls", "reader:no-such-bucket"]],
      [["copyto", p("f.txt")]],
      [["copyto", "a", "b", "c"]],
      [["rcat"]],
      [["frob"]],
      [["copyto", "--bogus", "a", "b"]],
      // The engine's reader key sees everything (and writes, checking the destination first).
      [["rcat", "-v", "reader:k8s-etcd-snapshots/r6"], big],
      [["copyto", "-v", p("f.txt"), "reader:k8s-etcd-snapshots/f.txt"]],
      [["copyto", "-v", p("f.txt"), "reader:k8s-etcd-snapshots/f.txt"]],
      [["lsf", "reader:k8s-etcd-snapshots"]],
      [["lsf", "-R", "reader:"]],
      [["lsf", "--files-only", "-F", "ps", "reader:k8s-etcd-snapshots"]],
      [["ls", "reader:k8s-etcd-snapshots"]],
      [["ls", "reader:k8s-etcd-snapshots/d"]],
    ];
    for (const [args, stdin] of cases) {
      const want = await real(args, stdin ?? "");
      const got = await ours(args, stdin ?? "");
      expect({ args, ...got }).toEqual({ args, ...want });
    }
    // Both endpoints hold the same keys and versions (r5 exists: rclone uploaded before its check failed).
    const keys = (s: LabS3) =>
      s
        .list()
        .map((v) => `${v.key}:${v.size}:${v.by}`)
        .sort();
    expect(keys(ourS3)).toEqual(keys(realS3));
  });
});
