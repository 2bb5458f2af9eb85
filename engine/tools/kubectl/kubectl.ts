// kubectl's root command: the global flags (kubeconfig, context, namespace, server, request timeout, TLS
// overrides, -v), the command tree, kubectl's help layout (Options as `    -o, --output='':` blocks, then
// Usage and the `kubectl options` hint), and the error paths of kubectl's main: flag errors as `Error: ...`
// with `See 'kubectl get --help' for usage.`, a missing required flag as klog's "command failed" line,
// command errors through CheckErr. runKubectl returns the exit status so tests can run it in-process.

import type { Command } from "../cobra/command.ts";
import { Command as Cmd } from "../cobra/command.ts";
import type { Flag } from "../cobra/flags.ts";
import { FlagError } from "../cobra/flags.ts";
import type { CliIo } from "../cobra/io.ts";
import { ExitSignal } from "../cobra/io.ts";
import { newApplyCommand, newReplaceCommand } from "./cmd/apply.ts";
import { MultiError } from "./cmd/common.ts";
import { newCreateCommand } from "./cmd/create.ts";
import { newDescribeCommand } from "./cmd/describe.ts";
import { newGetCommand } from "./cmd/get.ts";
import { newApiResourcesCommand, newConfigCommand, newLogsCommand, newVersionCommand } from "./cmd/info.ts";
import { newDeleteCommand, newPatchCommand, newScaleCommand } from "./cmd/mutate.ts";
import { newWaitCommand } from "./cmd/wait.ts";
import type { Globals } from "./ctx.ts";
import { Kube } from "./ctx.ts";
import { errorMessage, standardErrorMessage } from "./errors.ts";

function flagDefault(f: Flag): string {
  const v = f.value.string();
  if (f.value.type === "string") return `'${v}'`;
  return v;
}

/** kubectlFlagUsages is kubectl's templater flag layout: one `    -s, --name=default:` block per flag. */
function kubectlFlagUsages(flags: Flag[]): string {
  return flags
    .filter((f) => !f.hidden)
    .map((f) => {
      const names = f.shorthand !== "" ? `-${f.shorthand}, --${f.name}` : `--${f.name}`;
      return `    ${names}=${flagDefault(f)}:\n\t${f.usage}\n`;
    })
    .join("\n");
}

function kubectlHelp(cmd: Command): void {
  let out = `${(cmd.long !== "" ? cmd.long : cmd.short).replace(/\s+$/u, "")}\n\n`;
  const subs = cmd.commands().filter((c) => c.isAvailableCommand());
  if (subs.length > 0) {
    const w = Math.max(...subs.map((c) => c.name().length)) + 3;
    out += `Available Commands:\n${subs.map((c) => `  ${c.name().padEnd(w)}${c.short}\n`).join("")}\n`;
  }
  const local: Flag[] = [];
  cmd.localFlags().visitAll((f) => {
    if (f.name !== "help") local.push(f);
  });
  if (local.length > 0 && cmd.hasParent()) out += `Options:\n${kubectlFlagUsages(local)}\n`;
  const use = cmd.hasParent() ? cmd.useLine().replace(/ \[flags\]$/, "") : "kubectl [flags]";
  out += `Usage:\n  ${subs.length > 0 ? `${cmd.commandPath()} [command]` : `${use} [flags]`} [options]\n\n`;
  if (subs.length > 0) out += `Use "${cmd.commandPath()} <command> --help" for more information about a given command.\n`;
  out += `Use "kubectl options" for a list of global command-line options (applies to all commands).\n`;
  cmd.outOrStdout()(out);
}

/** newRootCommand builds kubectl's command tree for one run. */
export function newRootCommand(kube: Kube): Command {
  const root = kube.root as Command;
  root.addCommand(
    newGetCommand(kube),
    newDescribeCommand(kube),
    newCreateCommand(kube),
    newApplyCommand(kube),
    newReplaceCommand(kube),
    newDeleteCommand(kube),
    newScaleCommand(kube),
    newPatchCommand(kube),
    newWaitCommand(kube),
    newLogsCommand(kube),
    newVersionCommand(kube),
    newApiResourcesCommand(kube),
    newConfigCommand(kube),
  );
  return root;
}

function globals(root: Command): Globals {
  const pf = root.persistentFlags();
  return {
    kubeconfig: pf.string("kubeconfig", "", "", "Path to the kubeconfig file to use for CLI requests."),
    context: pf.string("context", "", "", "The name of the kubeconfig context to use"),
    cluster: pf.string("cluster", "", "", "The name of the kubeconfig cluster to use"),
    user: pf.string("user", "", "", "The name of the kubeconfig user to use"),
    namespace: pf.string("namespace", "n", "", "If present, the namespace scope for this CLI request"),
    server: pf.string("server", "s", "", "The address and port of the Kubernetes API server"),
    token: pf.string("token", "", "", "Bearer token for authentication to the API server"),
    insecure: pf.bool(
      "insecure-skip-tls-verify",
      "",
      false,
      "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure",
    ),
    requestTimeout: pf.string(
      "request-timeout",
      "",
      "0",
      "The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.",
    ),
    certificateAuthority: pf.string("certificate-authority", "", "", "Path to a cert file for the certificate authority"),
    clientCertificate: pf.string("client-certificate", "", "", "Path to a client certificate file for TLS"),
    clientKey: pf.string("client-key", "", "", "Path to a client key file for TLS"),
  };
}

/** runKubectl is the whole program: it returns the exit status. */
export async function runKubectl(io: CliIo, args: string[], pid = process.pid): Promise<number> {
  const root = new Cmd({
    use: "kubectl",
    short: "kubectl controls the Kubernetes cluster manager",
    long: "kubectl controls the Kubernetes cluster manager.\n\n Find more information at: https://kubernetes.io/docs/reference/kubectl/",
    run: (c) => c.help(),
  });
  root.silenceErrors = true;
  root.silenceUsage = true;
  root.helpFn = kubectlHelp;
  root.usageFn = () => undefined;
  const g = globals(root);
  const pf = root.persistentFlags();
  pf.int("v", "v", 0, "number for the log level verbosity");
  pf.string("cache-dir", "", "", "Default cache directory");
  pf.bool("match-server-version", "", false, "Require server version to match client version");
  pf.string("as", "", "", "Username to impersonate for the operation.");
  pf.bool("warnings-as-errors", "", false, "Treat warnings received from the server as errors and exit with a non-zero exit code");
  const kube = new Kube(io, g, pid);
  kube.root = root;
  newRootCommand(kube);
  try {
    const err = await root.execute(io, args);
    if (err === undefined) return 0;
    if (err instanceof FlagError) {
      const found = root.find(args).cmd;
      io.stderr(`Error: ${err.message}\nSee '${found.commandPath()} --help' for usage.\n`);
      return 1;
    }
    if (err.message.startsWith("required flag(s)")) {
      kube.klog("E", "run.go:72", `"command failed" err=${JSON.stringify(err.message)}`);
      return 1;
    }
    io.stderr(`Error: ${err.message}\n`);
    return 1;
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    if (e instanceof MultiError) {
      io.stderr(
        `${e.errors
          .map((x) => standardErrorMessage(x) ?? `error: ${x instanceof Error ? x.message : String(x)}`)
          .join("\n")}\n`,
      );
      return 1;
    }
    io.stderr(errorMessage(e));
    return 1;
  }
}
