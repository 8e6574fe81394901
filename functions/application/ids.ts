/** Ids that arrive in paths and bodies, checked against the gateway's id rule before they reach a key or a URL. */
import { ValidationError } from '../domain/errors';
import { isValidId } from '../domain/order-events';

export function requireId(value: unknown, field: string): string {
  if (!isValidId(value)) {
    throw new ValidationError([{
      field,
      problem: `is ${JSON.stringify(value) ?? 'missing'}, not a valid id`,
      expected: '3 to 45 characters of A-Z, a-z, 0-9, "_" and "-"',
    }]);
  }
  return value as string;
}
