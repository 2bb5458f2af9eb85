// etcdctl's ctlv3/command/global.go: turning the global flags (and ETCDCTL_* variables) into a client
// configuration, choosing the printer, creating the client, and the small helpers every command shares
// (command timeout, value-from-stdin). The order of checks follows etcd's, because it decides which error a
// learner sees first.

import type { Command } from "../cobra/command.ts";
import { setPflagsFromEnv, flagToEnv } from "../cobra/env.ts";
import { ExitCode, errorText, exitWithError } from "../cobra/exit.ts";
import { Flag } from "../cobra/flags.ts";
import type { FlagValue } from "../cobra/flags.ts";
import type { CliIo } from "../cobra/io.ts";
import { ExitSignal } from "../cobra/io.ts";
import type { ClientConfig, CtlClient } from "./client-port.ts";
import { newPrinter } from "./printer/new-printer.ts";
import type { Printer } from "./printer/printer.ts";
import { SimplePrinter } from "./printer/printer-simple.ts";
import { askPassword } from "./password.ts";
import { discoverEndpoints } from "./srv.ts";

/** Ctl is one etcdctl run: its io and the printer chosen by -w/--hex (etcd's `display` global). */
export class Ctl {
  display: Printer;
  format = "simple";
  private readonly clients: CtlClient[] = [];

  constructor(readonly io: CliIo) {
    this.display = new SimplePrinter(io, false);
  }

  /** track registers a client to close when the run ends. */
  track(c: CtlClient): CtlClient {
    this.clients.push(c);
    return c;
  }

  /** closeAll closes every client the run created. */
  closeAll(): void {
    for (const c of this.clients.splice(0)) c.close();
  }
}

/** GoFrame names the Go function and file:line etcd 3.6 would show for a call site (used in stack traces). */
export type GoFrame = readonly [func: string, fileLine: string];

function stackFrames(frames: readonly GoFrame[]): string[] {
  const cmdPkg = "go.etcd.io/etcd/etcdctl/v3/ctlv3/command";
  return [
    ...frames.map(([fn, at]) => `${cmdPkg}.${fn}\n\t${cmdPkg}/${at}`),
    "github.com/spf13/cobra.(*Command).execute\n\tgithub.com/spf13/cobra@v1.10.2/command.go:1019",
    "github.com/spf13/cobra.(*Command).ExecuteC\n\tgithub.com/spf13/cobra@v1.10.2/command.go:1148",
    "github.com/spf13/cobra.(*Command).Execute\n\tgithub.com/spf13/cobra@v1.10.2/command.go:1071",
    "go.etcd.io/etcd/etcdctl/v3/ctlv3.Start\n\tgo.etcd.io/etcd/etcdctl/v3/ctlv3/ctl.go:112",
    "go.etcd.io/etcd/etcdctl/v3/ctlv3.MustStart\n\tgo.etcd.io/etcd/etcdctl/v3/ctlv3/ctl.go:116",
    "main.main\n\tgo.etcd.io/etcd/etcdctl/v3/main.go:23",
  ];
}

const discard: FlagValue = { type: "", set: () => {}, string: () => "" };

/** initDisplayFromCmd picks the printer from --hex and --write-out. */
export function initDisplayFromCmd(ctl: Ctl, cmd: Command): void {
  const isHex = cmd.flags().getBool("hex");
  const format = cmd.flags().getString("write-out");
  const p = newPrinter(ctl.io, format, isHex);
  if (!p) exitWithError(ctl.io, ExitCode.badFeature, "unsupported output format");
  ctl.display = p;
  ctl.format = format;
}

/** clientConfigFromCmd is global.go's clientConfigFromCmd (env binding, --debug dump, printer). */
export async function clientConfigFromCmd(ctl: Ctl, cmd: Command, site: readonly GoFrame[]): Promise<ClientConfig> {
  const io = ctl.io;
  const fs = cmd.inheritedFlags();
  if (cmd.use.startsWith("watch")) {
    // etcdctl silences "unrecognized environment variable ETCDCTL_WATCH_KEY" with two no-op flags.
    fs.addFlag(new Flag("watch-key", "", "", discard, "", ""));
    fs.addFlag(new Flag("watch-range-end", "", "", discard, "", ""));
  }
  setPflagsFromEnv(io, "ETCDCTL", fs, [...stackFrames([["clientConfigFromCmd", "global.go:105"], ...site])]);
  if (cmd.flags().getBool("debug")) {
    fs.visitAll((f) => io.stderr(`${flagToEnv("ETCDCTL", f.name)}=${f.value.string()}\n`));
  }
  const flags = cmd.flags();
  let endpoints: string[];
  try {
    endpoints = await endpointsFromCmd(ctl, cmd);
  } catch (e) {
    return exitWithError(io, ExitCode.error, e);
  }
  const cfg: ClientConfig = {
    endpoints,
    dialTimeoutNs: flags.getDuration("dial-timeout"),
    keepAliveTimeNs: flags.getDuration("keepalive-time"),
    keepAliveTimeoutNs: flags.getDuration("keepalive-timeout"),
    maxCallSendMsgSize: flags.getInt("max-request-bytes"),
    maxCallRecvMsgSize: flags.getInt("max-recv-bytes"),
    insecureTransport: flags.getBool("insecure-transport"),
    tls: secureCfgFromCmd(ctl, cmd),
    ...(await authCfgFromCmd(ctl, cmd)),
  };
  initDisplayFromCmd(ctl, cmd);
  return cfg;
}

/** secureCfgFromCmd reads --cert/--key/--cacert (an explicit empty value is an error, exit 128). */
export function secureCfgFromCmd(ctl: Ctl, cmd: Command): ClientConfig["tls"] {
  const flags = cmd.flags();
  const file = (name: string) => {
    const v = flags.getString(name);
    if (v === "" && flags.lookup(name)?.changed) {
      exitWithError(ctl.io, ExitCode.badArgs, `empty string is passed to --${name} option`);
    }
    return v;
  };
  const certFile = file("cert");
  const keyFile = file("key");
  const caFile = file("cacert");
  const insecureDiscovery = flags.getBool("insecure-discovery");
  const domain = insecureDiscovery ? "" : flags.getString("discovery-srv");
  return {
    certFile,
    keyFile,
    caFile,
    insecureSkipVerify: flags.getBool("insecure-skip-tls-verify"),
    serverName: domain,
  };
}

/** authCfgFromCmd reads --user/--password; `--user name` alone prompts for the password. */
export async function authCfgFromCmd(ctl: Ctl, cmd: Command): Promise<{ username: string; password: string }> {
  const user = cmd.flags().getString("user");
  const password = cmd.flags().getString("password");
  if (user === "") return { username: "", password: "" };
  if (password !== "") return { username: user, password };
  const colon = user.indexOf(":");
  if (colon >= 0) return { username: user.slice(0, colon), password: user.slice(colon + 1) };
  try {
    return { username: user, password: await askPassword(ctl.io, "Password: ") };
  } catch (e) {
    return exitWithError(ctl.io, ExitCode.error, e);
  }
}

/** endpointsFromCmd returns SRV-discovered endpoints, or --endpoints with spaces trimmed. */
export async function endpointsFromCmd(ctl: Ctl, cmd: Command): Promise<string[]> {
  const flags = cmd.flags();
  const domain = flags.getString("discovery-srv");
  if (domain !== "") {
    const eps = await discoverEndpoints(domain, flags.getString("discovery-srv-name"));
    if (flags.getBool("insecure-discovery")) {
      if (eps.length > 0) return eps;
    } else {
      const secure = eps.filter((ep) => {
        if (!ep.startsWith("http://")) return true;
        ctl.io.stderr(`ignoring discovered insecure endpoint "${ep}"\n`);
        return false;
      });
      if (secure.length > 0) return secure;
    }
  }
  return flags.getStringSlice("endpoints").map((e) => e.trim());
}

/** mustClient creates a client (exit 128 for a bad TLS configuration, 2 when it cannot be created). */
export async function mustClient(ctl: Ctl, cfg: ClientConfig): Promise<CtlClient> {
  const { newCtlClient, ClientConfigError } = await import("./client.ts");
  try {
    return ctl.track(await newCtlClient(ctl.io, cfg));
  } catch (e) {
    if (e instanceof ClientConfigError) return exitWithError(ctl.io, ExitCode.badArgs, e);
    return exitWithError(ctl.io, ExitCode.badConnection, e);
  }
}

/** mustClientFromCmd is clientConfigFromCmd followed by mustClient. */
export async function mustClientFromCmd(ctl: Ctl, cmd: Command, site: readonly GoFrame[]): Promise<CtlClient> {
  const cfg = await clientConfigFromCmd(ctl, cmd, [["mustClientFromCmd", "global.go:154"], ...site]);
  return mustClient(ctl, cfg);
}

/** commandCtx is a context that ends after --command-timeout (its deadline and an aborting signal). */
export function commandCtx(cmd: Command): { signal: AbortSignal; deadlineMs: number; cancel: () => void } {
  const ms = Math.max(0, cmd.flags().getDuration("command-timeout") / 1e6);
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(new Error("context deadline exceeded")), ms);
  return { signal: ctl.signal, deadlineMs: Date.now() + ms, cancel: () => clearTimeout(t) };
}

/** argOrStdin returns args[i], or all of standard input when the argument is missing. */
export function argOrStdin(io: CliIo, args: string[], i: number): Uint8Array {
  if (i < args.length) return new TextEncoder().encode(args[i]);
  let bytes: Uint8Array;
  try {
    bytes = io.readStdin();
  } catch {
    throw new Error("no available argument and stdin");
  }
  if (bytes.length === 0) throw new Error("no available argument and stdin");
  return bytes;
}

/** exitOnClientError is the common `cobrautl.ExitWithError(cobrautl.ExitError, err)` after an RPC. */
export function exitOnClientError(ctl: Ctl, err: unknown, code: number = ExitCode.error): never {
  if (err instanceof ExitSignal) throw err;
  return exitWithError(ctl.io, code, errorText(err));
}
