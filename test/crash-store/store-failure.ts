// The full-store crash test's failure type.

/** StoreCrashFailure is a violated guarantee (or a store that stopped taking writes); the workspace is kept. */
export class StoreCrashFailure extends Error {
  override name = "StoreCrashFailure";
}
