// An Instant equals the text it is stored as, in toEqual, toMatchObject and the like (see test/times.ts). Jest 30 has
// addEqualityTesters; the pinned @types/jest does not declare it yet.
import { instantEqualsText } from './times';

(expect as unknown as { addEqualityTesters(testers: ((a: unknown, b: unknown) => boolean | undefined)[]): void }).addEqualityTesters([instantEqualsText]);
