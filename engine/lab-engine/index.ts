// The one public entry through which site/ (and tests, tools like bench/) reach the engine: the lab format
// (defineLab, from lab/lab-format.ts), the contexts a lab's checks and setup receive (types/check-context.ts),
// and the lab server's wire types (engine/lab-engine/http/API.md). Lab definitions import ../lab-format.ts
// instead, so that lab/ never imports the engine above types/.
// It imports nothing from node:*, so the site's browser code may import it (types) freely.
export {
  defineLab,
  validateLab,
  LabFormatError,
  kubeOptions,
  controlPlaneOptions,
  fillPlaceholders,
  type AntiSolution,
  type ParamSpec,
  type CheckFn,
  type CheckResult,
  type ClusterShape,
  type KubeOptions,
  type LabDefinition,
  type SetupFn,
  type TaskDefinition,
  type ControlPlaneOptions,
} from "../../lab/lab-format.ts";
export type * from "./types/check-context.ts";
export type * from "./types/status-types.ts";
export { capabilitiesOf } from "./types/status-types.ts";
export { humanizeBytes } from "../go/humanize.ts";
export type * from "./types/api-types.ts";
export type * from "./types/workshop-types.ts";
export type { ControlPlaneStatus } from "./kube/control-plane.ts";
export {
  eventsOfType,
  type ControlAction,
  type ControlSource,
  type LabEvent,
  type LabEventType,
} from "./types/event-types.ts";
