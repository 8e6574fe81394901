/** Bounded concurrency for a use case's many small reads or writes: a few at a time, never a burst of all of them. */

/** Runs `work` over every item, at most `limit` at once; after the first failure no more are started, and it is thrown. */
export async function eachInFlight<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }));
  if (failure) throw (failure as { error: unknown }).error;
}
