/** What every contract suite shares: the same tests run once per subject (the fake, the DynamoDB adapter), each test on a fresh one. */
import { startLocalDynamo, type LocalDynamo } from '../adapters/local-dynamodb';

/** A port's implementations under test, and how to let them go. */
export type Subject<P> = P & { close(): Promise<void> };
export type Subjects<P> = Array<[string, () => Promise<Subject<P>>]>;

/** The in-memory fakes, made fresh for each test. */
export const inMemory = <P>(make: () => P) => async (): Promise<Subject<P>> => ({ ...make(), close: async () => undefined });

/** The DynamoDB adapters on a dynalite of their own, closed after each test. */
export const onDynalite = <P>(make: (local: LocalDynamo) => P) => async (): Promise<Subject<P>> => {
  const local = await startLocalDynamo();
  return { ...make(local), close: () => local.close() };
};

/** Runs `suite` once per subject; `subject()` is the current test's. */
export function describeEachSubject<P>(subjects: Subjects<P>, suite: (subject: () => Subject<P>) => void): void {
  describe.each(subjects)('%s', (_name, make) => {
    let current: Subject<P>;
    beforeEach(async () => {
      current = await make();
    });
    afterEach(async () => {
      await current.close();
    });
    suite(() => current);
  });
}
