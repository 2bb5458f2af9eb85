// The Status objects kube-apiserver answers errors with (k8s.io/apimachinery pkg/api/errors): the same reason,
// code, details and message text for not found, already exists, conflict, invalid, bad request, expired,
// timeout and storage failures, so kubectl prints `Error from server (Reason): message` exactly as it does
// against a real cluster.
import { ApiError, type Status } from "../api/client.ts";
import type { ResourceInfo } from "../api/resources.ts";

type Details = NonNullable<Status["details"]>;

/** failure builds a Failure Status. */
export function failure(code: number, reason: string | undefined, message: string, details?: Details): Status {
  // Field order as the apiserver's JSON: message, reason, details, code.
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  };
}

/** fail throws an ApiError carrying a Failure Status. */
export function fail(code: number, reason: string | undefined, message: string, details?: Details): never {
  throw new ApiError(failure(code, reason, message, details));
}

/** qualifiedResource is the resource as errors name it: pods, deployments.apps. */
export function qualifiedResource(r: Pick<ResourceInfo, "group" | "resource">): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** qualifiedKind is the kind as Invalid errors name it: Pod, Deployment.apps. */
export function qualifiedKind(r: Pick<ResourceInfo, "group" | "kind">): string {
  return r.group ? `${r.kind}.${r.group}` : r.kind;
}

function resourceDetails(r: Pick<ResourceInfo, "group" | "resource">, name: string): Details {
  return { name, ...(r.group ? { group: r.group } : {}), kind: r.resource };
}

/** notFound is NewNotFound: `pods "x" not found`. */
export function notFound(r: Pick<ResourceInfo, "group" | "resource">, name: string): never {
  fail(404, "NotFound", `${qualifiedResource(r)} "${name}" not found`, resourceDetails(r, name));
}

/** alreadyExists is NewAlreadyExists: `pods "x" already exists`. */
export function alreadyExists(r: Pick<ResourceInfo, "group" | "resource">, name: string): never {
  fail(409, "AlreadyExists", `${qualifiedResource(r)} "${name}" already exists`, resourceDetails(r, name));
}

/** conflictMessage is the registry's optimistic-concurrency error, wrapped by NewConflict. */
export const conflictMessage =
  "the object has been modified; please apply your changes to the latest version and try again";

/** conflict is NewConflict: `Operation cannot be fulfilled on pods "x": <why>`. */
export function conflict(r: Pick<ResourceInfo, "group" | "resource">, name: string, why = conflictMessage): never {
  fail(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": ${why}`,
    resourceDetails(r, name),
  );
}

/** FieldError is one field.Error: its type decides the cause's reason and the message's wording. */
export interface FieldError {
  type:
    | "FieldValueRequired"
    | "FieldValueInvalid"
    | "FieldValueNotSupported"
    | "FieldValueForbidden"
    | "FieldValueDuplicate";
  field: string;
  /** value is the bad value (rendered as Go's %#v of a string or number); absent for Required. */
  value?: string | number | boolean;
  /** raw prints value as it is (a Go %#v rendering already), not quoted. */
  raw?: boolean;
  detail: string;
}

const typeWords: Record<FieldError["type"], string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueDuplicate: "Duplicate value",
};

/** fieldErrorBody is field.Error.ErrorBody: `Invalid value: "X": detail`. */
function fieldErrorBody(e: FieldError): string {
  const words = typeWords[e.type];
  if (e.type === "FieldValueRequired" || e.type === "FieldValueForbidden" || e.value === undefined)
    return e.detail ? `${words}: ${e.detail}` : words;
  const v = typeof e.value === "string" && !e.raw ? JSON.stringify(e.value) : String(e.value);
  return e.detail ? `${words}: ${v}: ${e.detail}` : `${words}: ${v}`;
}

/** invalid is NewInvalid: `Pod "X" is invalid: metadata.name: Invalid value: ...` (several errors in brackets). */
export function invalid(r: Pick<ResourceInfo, "group" | "kind">, name: string, errs: FieldError[]): never {
  const parts = errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  const body = parts.length === 1 ? parts[0]! : `[${parts.join(", ")}]`;
  fail(422, "Invalid", `${qualifiedKind(r)} "${name}" is invalid: ${body}`, {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.kind,
    causes: errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}

/** badRequest is NewBadRequest. */
export function badRequest(message: string): never {
  fail(400, "BadRequest", message);
}

/** expiredStatus is NewResourceExpired: the 410 of a watch from a compacted or too old resourceVersion. */
export function expiredStatus(message: string): Status {
  return failure(410, "Expired", message);
}

/** timeoutStatus is the 504 of the apiserver's request timeout filter. */
export function timeoutStatus(): Status {
  return failure(
    504,
    "Timeout",
    "Timeout: request did not complete within requested timeout - context deadline exceeded",
    {},
  );
}

/** internalStatus is how the apiserver answers an error that is not a Status (an etcd failure): 500, no reason. */
export function internalStatus(message: string): Status {
  return failure(500, undefined, message);
}

/** toStatus turns anything thrown while serving into the Status to answer with. */
export function toStatus(err: unknown): Status {
  if (err instanceof ApiError) return err.status;
  return internalStatus(err instanceof Error ? err.message : String(err));
}
