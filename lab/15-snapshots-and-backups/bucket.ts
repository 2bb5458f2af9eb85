// The lab's S3 bucket as a check reads it: ctx.s3 (the engine's reader key; the learner's key can only write)
// and ctx.backupKey (the identity of ~/keys/backup.pub, held by the engine), for labs with `cluster.s3` and
// `cluster.backupKey`. Checks see the latest version of each key, as a GET returns it.
import type { CheckContext } from "../lab-format.ts";
import type { BucketAccess } from "./checks.ts";

/** bucketOf is the session's bucket reader, or null when the session has no S3 endpoint or backup key. */
export function bucketOf(ctx: CheckContext): BucketAccess | null {
  const { s3, backupKey } = ctx;
  if (!s3 || !backupKey) return null;
  return {
    list: async () =>
      s3
        .list()
        .filter((o) => o.isLatest)
        .map((o) => ({ key: o.key, lastModifiedMs: o.lastModifiedMs })),
    get: (key) => s3.get(key),
    decrypt: (data) => backupKey.decrypt(data).catch(() => null),
  };
}
