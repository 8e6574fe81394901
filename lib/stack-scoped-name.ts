/** Physical names scoped by the stack's, so that two Holdback stacks share an account without colliding. */
import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * `<stack>-<name>`, at most `maxLength` characters (64: Lambda's, Scheduler's limit); a long stack name is cut, never
 * `name`, so each stack's names still end the same and stay apart from one another.
 */
export function stackScopedName(scope: IConstruct, name: string, maxLength = 64): string {
  return `${Stack.of(scope).stackName.slice(0, maxLength - name.length - 1)}-${name}`;
}
