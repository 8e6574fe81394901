/** The issues of the ValidationError that `run` throws; fails the test when it throws nothing or something else. */
import { ValidationError } from '../../functions/domain/errors';

export function issuesOf(run: () => unknown): ValidationError['issues'] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}
