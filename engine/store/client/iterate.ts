// iterate: the async iterator shared by Watch and KeepAlive — pull with next() until it returns undefined,
// and always release the source when the consumer stops (break, throw or end).

/** iterate yields next()'s values until undefined, then (or when the loop is left early) runs release. */
export async function* iterate<T>(
  next: () => Promise<T | undefined>,
  release: () => void | Promise<void>,
): AsyncGenerator<T> {
  try {
    for (;;) {
      const v = await next();
      if (v === undefined) return;
      yield v;
    }
  } finally {
    await release();
  }
}
