// kubectl's error printing (k8s.io/kubectl/pkg/cmd/util CheckErr and StandardErrorMessage): API Status
// errors as `Error from server (Reason): message`, connection refused as `The connection to the server
// HOST was refused - did you specify the right host or port?`, other transport errors as `Unable to connect
// to the server: ...`, anything else as `error: ...`; always exit status 1. klog's header for the lines
// client-go logs on stderr (`E1201 23:51:20.378786   27722 memcache.go:265] ...`).

import { ApiError } from "../../kube/api/client.ts";
import { DiscoveryFailed } from "./discovery.ts";
import { UrlError } from "./rest.ts";

/** KubectlError is an error a command reports with kubectl's `error: ` prefix (unless it has one). */
export class KubectlError extends Error {
  override name = "KubectlError";
}

/** standardErrorMessage is cmdutil.StandardErrorMessage; undefined when kubectl would print err.Error(). */
export function standardErrorMessage(err: unknown): string | undefined {
  if (err instanceof DiscoveryFailed) return standardErrorMessage(err.cause);
  if (err instanceof ApiError) {
    const s = err.status;
    if (s.reason === "Unauthorized") return `error: You must be logged in to the server (${s.message})`;
    if (s.reason) return `Error from server (${s.reason}): ${s.message}`;
    return `Error from server: ${s.message}`;
  }
  if (err instanceof UrlError) {
    if (err.cause.includes("connection refused")) {
      let host = err.url;
      try {
        host = new URL(err.url).host;
      } catch {
        // keep the raw URL, as kubectl does when it cannot parse it
      }
      return `The connection to the server ${host} was refused - did you specify the right host or port?`;
    }
    return `Unable to connect to the server: ${err.cause}`;
  }
  return undefined;
}

/** invalidMessage is CheckErr's wording of a 422 Invalid Status (`The ConfigMap "x" is invalid: ...`). */
function invalidMessage(err: ApiError): string {
  const d = err.status.details;
  let s = "The request is invalid";
  if (!d) return err.status.message !== "" ? `${s}: ${err.status.message}\n` : `${s}\n`;
  if ((d.kind ?? "") !== "" || (d.name ?? "") !== "") s = `The ${d.kind ?? ""} "${d.name ?? ""}" is invalid`;
  const causes = (d.causes ?? []).map((c) =>
    (c.field ?? "") !== "" ? `${c.field}: ${c.message ?? ""}` : (c.message ?? ""),
  );
  if (causes.length === 0) return `${s}\n`;
  if (causes.length === 1) return `${s}: ${causes[0]}\n`;
  return `${s}: \n${causes.map((c) => `* ${c}\n`).join("")}`;
}

/** errorMessage is what CheckErr prints for err (with its trailing newline). */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError && err.status.reason === "Invalid") return invalidMessage(err);
  let msg = standardErrorMessage(err);
  if (msg === undefined) {
    msg = err instanceof Error ? err.message : String(err);
    if (!msg.startsWith("error: ")) msg = `error: ${msg}`;
  }
  return msg.endsWith("\n") ? msg : `${msg}\n`;
}

/** klogHeader is klog's line header for severity `sev` ("E", "W", "I") at `file:line`, in local time. */
export function klogHeader(sev: string, nowMs: number, pid: number, fileLine: string): string {
  const d = new Date(nowMs);
  const p2 = (n: number) => String(n).padStart(2, "0");
  const micros = String(d.getMilliseconds() * 1000).padStart(6, "0");
  const ts = `${p2(d.getMonth() + 1)}${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${micros}`;
  return `${sev}${ts} ${String(pid).padStart(7, " ")} ${fileLine}] `;
}
