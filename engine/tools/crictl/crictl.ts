// crictl for the lab's simulated masters: `crictl ps` and `crictl logs` over the static-pod containers a
// master's simulated kubelet runs (the etcd container is the real member process). It reads the kubelet's
// state from the lab server (GET /api/sessions/<id>/kube/static-pods, with the shell's session token) instead
// of a CRI socket, and prints what crictl 1.3x prints: ps's table through Go's tabwriter (minwidth 20,
// padding 3), truncated 13-character ids, docker/go-units ages, newest first.
// The lab's addition: `--master <m>` (or $CRICTL_MASTER) picks the master; the default is m1, the master a
// lab shell stands in for.
import { stringify } from "yaml";
import { tabwrite } from "../cobra/tabwriter.ts";

/** CriContainer is one container as the lab server lists it (cluster/static-pods.ts MasterView.containers). */
export interface CriContainer {
  id: string;
  podId: string;
  name: string;
  image: string;
  imageId: string;
  podName: string;
  namespace: string;
  state: "Running" | "Exited" | "Created";
  attempt: number;
  createdAt: number;
  finishedAt: number | null;
  exitCode: number | null;
}

/** CriMaster is one master's kubelet view as the lab server answers it. */
export interface CriMaster {
  master: string;
  node: string;
  containers: CriContainer[];
}

/** CrictlBackend is where crictl reads containers and logs (the lab server, or a test double). */
export interface CrictlBackend {
  masters(): Promise<CriMaster[]>;
  /** logs returns a container's log, or null when the runtime has no such container. */
  logs(id: string): Promise<string | null>;
}

/** CrictlIo is what crictl writes and reads besides its arguments. */
export interface CrictlIo {
  stdout(s: string): void;
  stderr(s: string): void;
  getenv(key: string): string;
  nowMs(): number;
}

const truncatedIdLen = 13;
const defaultEndpoint = "unix:///run/containerd/containerd.sock";

/** CrictlError ends crictl with logrus's fatal line (`FATA[0000] ...`) and exit status 1. */
class CrictlError extends Error {}

/** humanDuration is docker/go-units HumanDuration, which crictl's CREATED column uses. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return "Less than a second";
  if (seconds === 1) return "1 second";
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 1) return "About a minute";
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(ms / 3_600_000);
  if (hours === 1) return "About an hour";
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(ms / 3_600_000 / 24 / 365)} years`;
}

const truncate = (id: string, prefix = "") => {
  const s = id.startsWith(prefix) ? id.slice(prefix.length) : id;
  return s.length > truncatedIdLen ? s.slice(0, truncatedIdLen) : s;
};

interface PsOptions {
  all: boolean;
  quiet: boolean;
  noTrunc: boolean;
  latest: boolean;
  last: number;
  name: string;
  namespace: string;
  id: string;
  pod: string;
  state: string;
  image: string;
  output: string;
}

function matches(pattern: string, s: string): boolean {
  if (!pattern) return true;
  try {
    return new RegExp(pattern).test(s); // Go's regexp.MatchString: unanchored
  } catch {
    return false;
  }
}

/** psOutput renders `crictl ps` for a master's containers at time `nowMs`. */
export function psOutput(containers: readonly CriContainer[], o: PsOptions, nowMs: number): string {
  const state = o.state.toLowerCase();
  if (state && !["created", "running", "exited", "unknown"].includes(state)) {
    throw new CrictlError("--state should be one of created, running, exited or unknown");
  }
  let list = containers.filter((c) => {
    if (o.id && !c.id.startsWith(o.id)) return false;
    if (o.pod && !c.podId.startsWith(o.pod)) return false;
    if (o.image && c.image !== o.image && !c.imageId.startsWith(o.image)) return false;
    const byState =
      o.latest || o.last > 0 ? true : state ? c.state.toLowerCase() === state : o.all || c.state === "Running";
    return byState && matches(o.name, c.name) && matches(o.namespace, c.namespace);
  });
  list = [...list].sort((a, b) => b.createdAt - a.createdAt);
  const n = o.latest ? 1 : o.last > 0 ? o.last : list.length;
  list = list.slice(0, n);
  if (o.output === "json" || o.output === "yaml") {
    const body = { containers: list.map(criJson) };
    return o.output === "json" ? JSON.stringify(body, null, 2) + "\n" : stringify(body);
  }
  if (o.output !== "table") throw new CrictlError(`listing containers: unsupported output format "${o.output}"`);
  if (o.quiet) return list.map((c) => `${c.id}\n`).join("");
  const rows = [["CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD", "NAMESPACE"]];
  for (const c of list) {
    rows.push([
      o.noTrunc ? c.id : truncate(c.id),
      o.noTrunc ? c.imageId : truncate(c.imageId, "sha256:"),
      `${humanDuration(nowMs - c.createdAt)} ago`,
      c.state,
      c.name,
      String(c.attempt),
      o.noTrunc ? c.podId : truncate(c.podId),
      c.podName,
      c.namespace,
    ]);
  }
  return tabwrite(rows.map((r) => r.join("\t") + "\n").join(""), {
    minwidth: 20,
    tabwidth: 1,
    padding: 3,
    padchar: " ",
  });
}

/** criJson is a container as the CRI's ListContainersResponse prints it in JSON (crictl ps -o json). */
function criJson(c: CriContainer): Record<string, unknown> {
  return {
    id: c.id,
    podSandboxId: c.podId,
    metadata: { name: c.name, attempt: c.attempt },
    image: { image: c.imageId, annotations: {}, userSpecifiedImage: c.image, runtimeHandler: "" },
    imageRef: c.imageId,
    state: `CONTAINER_${c.state.toUpperCase()}`,
    createdAt: String(c.createdAt * 1_000_000),
    labels: {
      "io.kubernetes.container.name": c.name,
      "io.kubernetes.pod.name": c.podName,
      "io.kubernetes.pod.namespace": c.namespace,
    },
    annotations: { "io.kubernetes.container.restartCount": String(c.attempt) },
  };
}

/** usage is crictl's own help screen, cut to what the lab's crictl does. */
export const usage = `NAME:
   crictl - client for CRI

USAGE:
   crictl [global options] command [command options]

VERSION:
   v1.33.0 (etcd-lab: the simulated kubelets' static pods)

COMMANDS:
   logs     Fetch the logs of a container
   ps       List containers
   version  Display runtime version information
   help, h  Shows a list of commands or help for one command

GLOBAL OPTIONS:
   --runtime-endpoint value, -r value  Endpoint of CRI container runtime service (default: uses in order the first successful one of [unix:///run/containerd/containerd.sock unix:///run/crio/crio.sock unix:///var/run/cri-dockerd.sock]). Default is now deprecated and the endpoint should be set instead. [$CONTAINER_RUNTIME_ENDPOINT]
   --master value                      the lab master whose runtime to ask: m1, m2, ... or k8s-master-N (default: "m1") [$CRICTL_MASTER]
   --help, -h                          show help
   --version, -v                       print the version
`;

/** Args walks urfave/cli-style arguments: --flag value, --flag=value, -f value, combined short booleans. */
class Args {
  private i = 0;
  constructor(private readonly argv: readonly string[]) {}
  next(): string | undefined {
    return this.argv[this.i++];
  }
  value(flag: string): string {
    const v = this.next();
    if (v === undefined) throw new UsageError(`flag needs an argument: -${flag}`);
    return v;
  }
  rest(): string[] {
    return this.argv.slice(this.i);
  }
}

class UsageError extends Error {}

/** psUsage is `crictl ps --help`, for the flags the lab's crictl takes. */
export const psUsage = `NAME:
   crictl ps - List containers

USAGE:
   crictl ps [command options]

OPTIONS:
   --all, -a                Show all containers (default: false)
   --id value               Filter by container id
   --image value            Filter by container image
   --last value, -n value   Show last n recently created containers (includes all states). Set 0 for unlimited. (default: 0)
   --latest, -l             Show the most recently created container (includes all states) (default: false)
   --name value             Filter by container name regular expression pattern
   --namespace value        Filter by pod namespace regular expression pattern
   --no-trunc               Show output without truncating the ID (default: false)
   --output value, -o value Output format, One of: json|yaml|table (default: "table")
   --pod value, -p value    Filter by pod id
   --quiet, -q              Only display container IDs (default: false)
   --state value, -s value  Filter by container state
   --help, -h               show help
`;

/** parsePs reads ps's flags; null is --help. */
function parsePs(args: Args): PsOptions | null {
  const o: PsOptions = {
    all: false,
    quiet: false,
    noTrunc: false,
    latest: false,
    last: 0,
    name: "",
    namespace: "",
    id: "",
    pod: "",
    state: "",
    image: "",
    output: "table",
  };
  const bools: Record<string, keyof PsOptions> = {
    a: "all",
    all: "all",
    q: "quiet",
    quiet: "quiet",
    "no-trunc": "noTrunc",
    l: "latest",
    latest: "latest",
  };
  const strings: Record<string, keyof PsOptions> = {
    name: "name",
    namespace: "namespace",
    id: "id",
    p: "pod",
    pod: "pod",
    s: "state",
    state: "state",
    image: "image",
    o: "output",
    output: "output",
    n: "last",
    last: "last",
  };
  for (let a = args.next(); a !== undefined; a = args.next()) {
    if (a === "-h" || a === "--help") return null;
    if (!a.startsWith("-")) throw new UsageError("ps takes no arguments");
    const [flag, inline] = a.replace(/^--?/, "").split(/=(.*)/s) as [string, string | undefined];
    const key = strings[flag] ?? bools[flag];
    if (!key) {
      // UseShortOptionHandling: -aq is -a -q.
      const shorts = a.startsWith("--") ? [] : [...flag];
      if (shorts.length > 1 && shorts.every((c) => bools[c])) {
        for (const c of shorts) (o as unknown as Record<string, boolean>)[bools[c] as string] = true;
        continue;
      }
      throw new UsageError(`flag provided but not defined: -${flag}`);
    }
    if (strings[flag]) {
      const v = inline ?? args.value(flag);
      if (key === "last") {
        if (!/^\d+$/.test(v)) throw new UsageError(`invalid value "${v}" for flag -${flag}: parse error`);
        o.last = Number(v);
      } else (o as unknown as Record<string, string>)[key] = v;
    } else (o as unknown as Record<string, boolean>)[key] = inline === undefined || inline === "true";
  }
  return o;
}

function masterOf(containers: CriMaster[], wanted: string): CriMaster {
  const name = /^k8s-master-(\d+)$/.exec(wanted)?.[1];
  const m = containers.find((x) => x.master === wanted || (name !== undefined && x.master === `m${name}`));
  if (!m) {
    throw new CrictlError(
      `validate service connection: validate CRI v1 runtime API for endpoint "${defaultEndpoint}": no master "${wanted}" in this lab (masters: ${containers.map((x) => x.master).join(", ")})`,
    );
  }
  return m;
}

/** runCrictl runs one crictl command line and returns its exit status. */
export async function runCrictl(argv: readonly string[], io: CrictlIo, backend: CrictlBackend | null): Promise<number> {
  const args = new Args(argv);
  let master = io.getenv("CRICTL_MASTER") || "m1";
  try {
    let cmd = args.next();
    for (; cmd !== undefined && cmd.startsWith("-"); cmd = args.next()) {
      const [flag, inline] = cmd.replace(/^--?/, "").split(/=(.*)/s) as [string, string | undefined];
      if (flag === "h" || flag === "help") cmd = "help";
      else if (flag === "v" || flag === "version") {
        io.stdout("crictl version v1.33.0\n");
        return 0;
      } else if (flag === "master") master = inline ?? args.value(flag);
      else if (["r", "runtime-endpoint", "i", "image-endpoint", "t", "timeout", "c", "config"].includes(flag)) {
        if (inline === undefined) args.value(flag);
      } else if (flag === "D" || flag === "debug") continue;
      else throw new UsageError(`flag provided but not defined: -${flag}`);
      if (cmd === "help") break;
    }
    switch (cmd) {
      case undefined:
      case "help":
      case "h":
        io.stdout(usage);
        return 0;
      case "version":
        io.stdout(
          "Version:  0.1.0\nRuntimeName:  containerd (simulated by etcd-lab)\nRuntimeVersion:  v2.0.0\nRuntimeApiVersion:  v1\n",
        );
        return 0;
      case "ps": {
        const o = parsePs(args);
        if (!o) {
          io.stdout(psUsage);
          return 0;
        }
        const m = masterOf(await need(backend).masters(), master);
        io.stdout(psOutput(m.containers, o, io.nowMs()));
        return 0;
      }
      case "logs": {
        let id: string | undefined;
        let tail = -1;
        for (let a = args.next(); a !== undefined; a = args.next()) {
          if (a === "--tail" || a.startsWith("--tail=")) {
            const v = a.includes("=") ? a.slice(7) : args.value("tail");
            if (!/^-?\d+$/.test(v)) throw new UsageError(`invalid value "${v}" for flag -tail: parse error`);
            tail = Number(v);
          } else if (a.startsWith("-"))
            throw new UsageError(`flag provided but not defined: -${a.replace(/^--?/, "")}`);
          else id = a;
        }
        if (!id) throw new CrictlError("ID cannot be empty");
        masterOf(await need(backend).masters(), master);
        const log = await need(backend).logs(id);
        if (log === null) {
          throw new CrictlError(
            `rpc error: code = NotFound desc = an error occurred when try to find container "${id}": not found`,
          );
        }
        const lines = log.split("\n");
        if (lines.at(-1) === "") lines.pop();
        const shown = tail >= 0 ? lines.slice(Math.max(0, lines.length - tail)) : lines;
        io.stdout(shown.map((l) => l + "\n").join(""));
        return 0;
      }
      default:
        io.stderr(`No help topic for '${cmd}'\n`);
        return 3;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`Incorrect Usage: ${err.message}\n\n`);
      io.stderr(usage);
      return 1;
    }
    if (err instanceof CrictlError) {
      io.stderr(`FATA[0000] ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function need(backend: CrictlBackend | null): CrictlBackend {
  if (backend) return backend;
  throw new CrictlError(
    `validate service connection: validate CRI v1 runtime API for endpoint "${defaultEndpoint}": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory" (not inside a lab shell: ETCD_LAB_URL, ETCD_LAB_SESSION and ETCD_LAB_TOKEN are not set)`,
  );
}

/** labBackend reads the simulated kubelets' containers from the lab server with the shell's session token. */
export function labBackend(url: string, session: string, token: string): CrictlBackend {
  const get = async (path: string): Promise<Response> => {
    try {
      return await fetch(`${url}/api/sessions/${session}${path}`, { headers: { authorization: `Bearer ${token}` } });
    } catch (err) {
      throw new CrictlError(
        `validate service connection: validate CRI v1 runtime API for endpoint "${defaultEndpoint}": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: ${(err as Error).message}"`,
      );
    }
  };
  const body = async (res: Response): Promise<unknown> => {
    const text = await res.text();
    if (!res.ok) {
      let msg = `the lab server answered ${res.status}`;
      try {
        msg = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? msg;
      } catch {
        // not JSON
      }
      throw new CrictlError(msg);
    }
    return JSON.parse(text) as unknown;
  };
  return {
    masters: async () => ((await body(await get("/kube/static-pods"))) as { masters: CriMaster[] }).masters,
    logs: async (id) => {
      const res = await get(`/kube/containers/${encodeURIComponent(id)}/logs`);
      if (res.status === 404) return null;
      return ((await body(res)) as { log: string }).log;
    },
  };
}
