// The offline half of the kubectl differential test: commands that never reach a server (client dry runs,
// printers, argument, flag and YAML errors), plus connection refused on a port nothing listens on. It needs
// only real kubectl and bin/kubectl, so it also runs where no etcd backend is available.

import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { kubeconfigText } from "./env.ts";
import { normalize } from "./normalize.ts";

const gcloud132 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const realKubectl = existsSync(gcloud132) ? gcloud132 : "/usr/bin/kubectl";
const ourKubectl = join(import.meta.dirname, "../../bin/kubectl");

function haveRealKubectl(): boolean {
  try {
    accessSync(realKubectl, constants.X_OK);
    return true;
  } catch {
    const why = `real kubectl (${realKubectl}) is not installed`;
    if (process.env["ETCD_LAB_CI"] === "1") throw new Error(why);
    console.warn(`\n!!! SKIPPING offline kubectl differential tests: ${why}\n`);
    return false;
  }
}

const long = Array.from({ length: 40 }, () => "word").join(" ");
const dry = ["--dry-run=client"];

/** cases are argument lists; the YAML files they name are written into the working directory. */
const cases: string[][] = [
  [
    "create",
    "configmap",
    "x",
    `--from-literal=a=${long}`,
    "--from-literal=b=x: y",
    "--from-literal=c=123",
    ...dry,
    "-o",
    "yaml",
  ],
  [
    "create",
    "configmap",
    "x",
    "--from-literal=d=l1\nl2\n",
    "--from-literal=e= lead",
    "--from-literal=f=it's",
    ...dry,
    "-o",
    "yaml",
  ],
  ["create", "configmap", "x", "--from-file=data.txt", "--from-file=k=data.txt", ...dry, "-o", "json"],
  ["create", "configmap", "x", "--from-literal=a=b", "-n", "other", ...dry, "-o", "json"],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry, "-o", "name"],
  ["create", "configmap", "x", "--from-literal=a", ...dry],
  ["create", "configmap", "x", "--from-literal=a b=1", ...dry],
  ["create", "configmap", "x", "--from-literal=a=1", "--from-literal=a=2", ...dry],
  ["create", "configmap", "x", "--from-file=missing.txt", ...dry],
  ["create", "configmap", "x", "--dry-run=bogus"],
  ["create", "configmap", "x", ...dry, "-o", "bar"],
  ["create", "configmap"],
  ["create", "secret", "generic", "s", "--from-literal=p=q", "--type=kubernetes.io/tls", ...dry, "-o", "yaml"],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry, "-o", 'jsonpath={range .data.*}{@}{"\\n"}{end}'],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry, "-o", "jsonpath={.data[0]}"],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry, "-o", "jsonpath={.data"],
  ["create", "configmap", "x", "--from-literal=a=b", ...dry, "-o", "jsonpath-as-json={.data}"],
  ["apply", "-f", "broken.yaml", ...dry],
  ["apply", "-f", "tabs.yaml", ...dry],
  ["apply", "-f", "nokind.yaml", ...dry],
  ["apply"],
  ["get"],
  ["get", "--bogus"],
  ["get", "pods", "-n"],
  ["get", "pods", "--watch=maybe"],
  ["bogus"],
  ["scale", "deployment/x"],
  ["logs"],
  ["delete"],
  ["patch", "pod", "x"],
  ["wait"],
  ["config", "current-context"],
  ["config", "use-context", "nope"],
  ["version", "-o", "bar"],
  ["get", "pods"],
];

const files: Record<string, string> = {
  "data.txt": "hello\n",
  "broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n   labels: {}\n",
  "tabs.yaml": "a:\tb\n\tc: d\n",
  "nokind.yaml": "metadata:\n  name: x\n",
};

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

function run(
  bin: string,
  args: string[],
  dir: string,
  home: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, {
      cwd: dir,
      env: { PATH: process.env["PATH"] ?? "", HOME: home, KUBECONFIG: join(dir, "kubeconfig"), TZ: "UTC" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    p.on("error", reject);
    p.on("close", (code) => resolve({ stdout: normalize(stdout), stderr: normalize(stderr), code }));
  });
}

describe.skipIf(!haveRealKubectl())("kubectl differential, offline", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubectl-offline-"));
    writeFileSync(join(dir, "kubeconfig"), kubeconfigText(`http://127.0.0.1:${await closedPort()}`));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  });

  it(`${cases.length} commands print what real kubectl prints`, async () => {
    for (let i = 0; i < cases.length; i += 6) {
      await Promise.all(
        cases.slice(i, i + 6).map(async (args) => {
          const [real, ours] = await Promise.all([
            run(realKubectl, args, dir, mkdtempSync(join(tmpdir(), "kubectl-home-"))),
            run(ourKubectl, args, dir, mkdtempSync(join(tmpdir(), "kubectl-home-"))),
          ]);
          expect(ours, `kubectl ${args.join(" ")}`).toEqual(real);
        }),
      );
    }
  }, 60_000);
});
