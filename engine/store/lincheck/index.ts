// engine/store/lincheck: a porcupine-style linearizability checker (pure: no I/O, no clock, no randomness).
export { checkHistory, defaultMaxCacheBytes, defaultMaxSteps } from "./check.ts";
export type { CheckOptions, CheckResult, PartReport } from "./check.ts";
export { describeCheck, describePart, type DescribeOptions } from "./describe.ts";
export { isUnknown, validateHistory, type Operation } from "./history.ts";
export {
  compareHolds,
  describeKvOperation,
  kvModel,
  partitionByKey,
  prefixRange,
  type CompareOp,
  type KvBranch,
  type KvCompare,
  type KvInput,
  type KvModelOptions,
  type KvOperation,
  type KvOutput,
  type KvRecord,
  type KvState,
} from "./kv-model.ts";
export type { Model } from "./model.ts";
export { searchLinearization, type SearchBudget, type SearchResult, type Verdict } from "./wgl.ts";
