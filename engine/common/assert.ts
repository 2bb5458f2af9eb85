/** AssertionError marks a broken invariant: a programmer error, never an operating error. */
export class AssertionError extends Error {
  override name = "AssertionError";
}

/**
 * assert checks an invariant that must hold whatever the input (a WAL record's CRC after read, a commit
 * index that never moves backwards). It stays on in production: a failed assertion is a bug, and going
 * on would risk the data.
 */
export function assert(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new AssertionError(typeof message === "string" ? message : message());
}
