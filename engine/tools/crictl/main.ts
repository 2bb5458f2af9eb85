// crictl's entry point (bundled to dist/crictl.mjs, launched by bin/crictl): the lab shell's environment names
// the lab server and the session whose simulated kubelets it lists.
import { readFileSync } from "node:fs";
import { labBackend, runCrictl } from "./crictl.ts";
import { sessionToken } from "../../common/session-token.ts";

const url = process.env["ETCD_LAB_URL"];
const session = process.env["ETCD_LAB_SESSION"];
const token = sessionToken(process.env, (p) => readFileSync(p, "utf8"));
const backend = url && session && token ? labBackend(url, session, token) : null;
const io = {
  stdout: (s: string) => void process.stdout.write(s),
  stderr: (s: string) => void process.stderr.write(s),
  getenv: (k: string) => process.env[k] ?? "",
  nowMs: () => Date.now(),
};
process.exitCode = await runCrictl(process.argv.slice(2), io, backend);
