// Operating errors of the cluster controls, as values with a code the lab server maps to HTTP statuses
// (engine/lab-engine/http/API.md §2) and a message for people (etcd's exact text when etcd said no).

/** ControlErrorCode classifies why a control did not happen. */
export type ControlErrorCode =
  "not_found" | "invalid_state" | "unsupported" | "timeout" | "cluster_error" | "bad_request";

/** ClusterControlError is a control that could not be carried out. */
export class ClusterControlError extends Error {
  override name = "ClusterControlError";
  constructor(
    readonly code: ControlErrorCode,
    message: string,
  ) {
    super(message);
  }
}
