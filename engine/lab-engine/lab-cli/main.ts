// The `lab` command inside a lab shell (bin/lab → dist/lab.mjs): talks to the lab server over HTTP with the
// session token in the file the shell's environment names (ETCD_LAB_TOKEN_FILE).
import { readFileSync } from "node:fs";
import { ApiCallError, run, UsageError, type LabEnv } from "./commands.ts";
import { sessionToken } from "../../common/session-token.ts";

function env(): LabEnv | null {
  const url = process.env["ETCD_LAB_URL"];
  const session = process.env["ETCD_LAB_SESSION"];
  const token = sessionToken(process.env, (p) => readFileSync(p, "utf8"));
  return url && session && token ? { url, session, token } : null;
}

const tty = process.stdout.isTTY === true;
const e = env();
const argv = process.argv.slice(2);
if (!e && !["help", "--help", "-h", undefined].includes(argv[0])) {
  console.error("lab: not inside a lab shell (ETCD_LAB_URL, ETCD_LAB_SESSION and ETCD_LAB_TOKEN_FILE are not set)");
  process.exit(2);
}
try {
  process.exitCode = await run(argv, e ?? { url: "", session: "", token: "" }, {
    out: (l) => process.stdout.write(l + "\n"),
    err: (l) => process.stderr.write(l + "\n"),
    raw: (t) => process.stdout.write(t),
    progress: (l) => {
      if (tty) process.stdout.write(`\r\x1b[K${l}`);
      else if (l) process.stdout.write(l + "\n");
    },
    tty,
  });
} catch (err) {
  if (err instanceof UsageError || err instanceof ApiCallError) {
    console.error(`lab: ${err.message}`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  } else {
    throw err;
  }
}
