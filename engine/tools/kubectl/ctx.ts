// What every kubectl command shares for one run: the I/O, the global flags (kubeconfig, context, namespace,
// server, request timeout), and, built on first use, the REST client and discovery. Commands fail by throwing;
// the entry point prints the error the way kubectl's CheckErr does.

import type { Command } from "../cobra/command.ts";
import type { CliIo } from "../cobra/io.ts";
import { Discovery } from "./discovery.ts";
import { klogHeader, KubectlError } from "./errors.ts";
import type { KubeconfigFile, RestConfig } from "./kubeconfig.ts";
import { kubeconfigPaths, loadKubeconfig, restConfig } from "./kubeconfig.ts";
import { RestClient } from "./rest.ts";

/** Globals are kubectl's global flags, read after parsing. */
export interface Globals {
  kubeconfig: () => string;
  context: () => string;
  cluster: () => string;
  user: () => string;
  namespace: () => string;
  server: () => string;
  token: () => string;
  insecure: () => boolean;
  requestTimeout: () => string;
  certificateAuthority: () => string;
  clientCertificate: () => string;
  clientKey: () => string;
}

/** parseRequestTimeout reads --request-timeout: a Go duration or whole seconds ("0" disables it). */
export function parseRequestTimeout(s: string): number {
  if (/^[0-9]+$/.test(s)) return Number(s) * 1000;
  const m = /^([0-9.]+)(ms|s|m|h)$/.exec(s);
  const mult: Record<string, number> = { ms: 1, s: 1000, m: 60000, h: 3600000 };
  if (!m) {
    throw new KubectlError(
      "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)",
    );
  }
  return Number(m[1]) * (mult[m[2] as string] as number);
}

/** Kube is the per-run context of kubectl's commands. */
export class Kube {
  private cfgFile: KubeconfigFile | undefined;
  private rc: RestConfig | undefined;
  private restClient: RestClient | undefined;
  private disco: Discovery | undefined;
  /** root is the command tree (commands print `See 'kubectl x -h'` hints with their paths). */
  root: Command | undefined;

  constructor(
    readonly io: CliIo,
    readonly g: Globals,
    readonly pid: number,
  ) {}

  /** kubeconfig is the merged kubeconfig. */
  kubeconfig(): KubeconfigFile {
    this.cfgFile ??= loadKubeconfig(
      kubeconfigPaths((k) => this.io.getenv(k), this.g.kubeconfig()),
      this.g.kubeconfig() !== "",
    );
    return this.cfgFile;
  }

  /** kubeconfigPath is the file `config use-context` writes (the first of the list). */
  kubeconfigPath(): string {
    return kubeconfigPaths((k) => this.io.getenv(k), this.g.kubeconfig())[0] as string;
  }

  config(): RestConfig {
    this.rc ??= restConfig(this.kubeconfig(), {
      kubeconfig: this.g.kubeconfig(),
      context: this.g.context(),
      cluster: this.g.cluster(),
      user: this.g.user(),
      namespace: this.g.namespace(),
      server: this.g.server(),
      token: this.g.token(),
      insecureSkipTlsVerify: this.g.insecure(),
      certificateAuthority: this.g.certificateAuthority(),
      clientCertificate: this.g.clientCertificate(),
      clientKey: this.g.clientKey(),
    });
    return this.rc;
  }

  /** namespace is the effective namespace (-n, the context's, or "default"). */
  namespace(): string {
    return this.config().namespace;
  }

  client(): RestClient {
    const text = this.g.requestTimeout();
    this.restClient ??= new RestClient(this.config(), parseRequestTimeout(text), text);
    return this.restClient;
  }

  discovery(): Discovery {
    this.disco ??= new Discovery(this.client(), (msg) => this.klog("E", "memcache.go:265", msg));
    return this.disco;
  }

  /** klog writes one klog line on stderr. */
  klog(sev: string, fileLine: string, msg: string): void {
    this.io.stderr(`${klogHeader(sev, this.io.nowMs(), this.pid, fileLine)}${msg}\n`);
  }
}
