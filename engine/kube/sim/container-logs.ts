// What a simulated container prints, deterministic per image and uptime: the first lines its real image
// prints at start-up (the text is the image's, as facts) and, for web servers, an access-log line per request
// the lab's simulated clients make (one every 30 s). A container whose command ran through a ContainerRunner
// shows that command's output instead.
import { rfc3339 } from "./clock.ts";

/** maxLogLines bounds what a container keeps (the kubelet's log rotation, small). */
export const maxLogLines = 1000;

const nginxStart = [
  "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
  "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
  "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
  "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
  "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
  "/docker-entrypoint.sh: Configuration complete; ready for start up",
];

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** clfTime is nginx's $time_local in UTC: 12/Jan/2026:10:00:30 +0000. */
function clfTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getUTCDate())}/${months[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

function nginxTime(ms: number): string {
  return rfc3339(ms).replace("T", " ").replace("Z", "").replaceAll("-", "/");
}

/** LogSource is what the lines are made from. */
export interface LogSource {
  image: string;
  startedAtMs: number;
  /** clientIP is the address the simulated requests come from (the node's pod CIDR gateway). */
  clientIP: string;
  /** output, when set, is the command's output (Jobs); it replaces the image's lines. */
  output?: string[];
}

/** containerLogs renders a container's log at `nowMs`. */
export function containerLogs(src: LogSource, nowMs: number): string[] {
  if (src.output) return src.output.slice(-maxLogLines);
  const image = src.image.split("/").pop() ?? src.image;
  if (image.startsWith("nginx")) {
    const t0 = src.startedAtMs;
    const lines = [...nginxStart.map((l) => l), `${nginxTime(t0)} [notice] 1#1: start worker processes`];
    const first = Math.max(1, Math.floor((nowMs - t0) / 30_000) - maxLogLines + 1);
    for (let i = first; t0 + i * 30_000 <= nowMs; i++) {
      const at = t0 + i * 30_000;
      lines.push(`${src.clientIP} - - [${clfTime(at)}] "GET / HTTP/1.1" 200 615 "-" "curl/8.5.0" "-"`);
    }
    return lines.slice(-maxLogLines);
  }
  if (image.startsWith("coredns")) {
    return [
      ".:53",
      "[INFO] plugin/reload: Running configuration SHA512 = (simulated)",
      "CoreDNS-1.11.3",
      "linux/amd64, go1.21.11, a6338e9",
    ];
  }
  return [];
}
