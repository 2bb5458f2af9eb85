// Errors as the API answers them (API.md §2): an HTTP status, a code and one line for people. Engine errors
// are mapped here, at the edge.
import type { ServerResponse } from "node:http";
import type { ApiErrorCode } from "../types/api-types.ts";
import { ClusterControlError } from "../cluster/control-error.ts";
import { StartupExit } from "../cluster/cluster.ts";
import { BackendUnavailable } from "../cluster/member-binary.ts";
import { SessionBusy } from "../session/session.ts";
import { SessionLimitError } from "../session/session-manager.ts";
import { WorkspacePathError } from "../session/workspace.ts";

/** ApiHttpError is an answer the API gives on purpose. */
export class ApiHttpError extends Error {
  override name = "ApiHttpError";
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const controlStatus: Record<string, [number, ApiErrorCode]> = {
  not_found: [404, "not_found"],
  invalid_state: [409, "invalid_state"],
  unsupported: [409, "unsupported"],
  timeout: [504, "timeout"],
  cluster_error: [502, "cluster_error"],
  bad_request: [400, "bad_request"],
};

/** toApiError maps any thrown value to an ApiHttpError (unknown errors become 500 internal). */
export function toApiError(err: unknown): ApiHttpError {
  if (err instanceof ApiHttpError) return err;
  if (err instanceof ClusterControlError) {
    const [status, code] = controlStatus[err.code] ?? [500, "internal"];
    return new ApiHttpError(status, code, err.message);
  }
  if (err instanceof StartupExit) return new ApiHttpError(502, "cluster_error", err.message);
  if (err instanceof SessionBusy) return new ApiHttpError(409, "busy", err.message);
  if (err instanceof SessionLimitError) return new ApiHttpError(429, "session_limit", err.message);
  if (err instanceof BackendUnavailable) return new ApiHttpError(409, "unsupported", err.message);
  if (err instanceof WorkspacePathError) return new ApiHttpError(400, "bad_request", err.message);
  return new ApiHttpError(500, "internal", `internal error: ${(err as Error)?.message ?? String(err)}`);
}

/** sendJson answers with a JSON body. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text);
}

/** sendError answers with the error body of API.md §2. */
export function sendError(res: ServerResponse, err: ApiHttpError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, err.status, { error: { code: err.code, message: err.message } });
}
