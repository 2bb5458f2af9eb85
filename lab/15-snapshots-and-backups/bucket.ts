// The lab's S3 bucket as a check reads it: through what the engine puts on the CheckContext for labs with
// `cluster.s3` (the reader key and the age identity stay in the engine; the learner's key can only write).
import type { CheckContext } from "../lab-format.ts";
import type { BucketAccess } from "./checks.ts";

/** bucketOf is the session's bucket reader, or null when the session has no S3 endpoint. */
export function bucketOf(ctx: CheckContext): BucketAccess | null {
  return (ctx as CheckContext & { s3?: BucketAccess }).s3 ?? null;
}
