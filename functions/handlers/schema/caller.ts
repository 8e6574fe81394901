/**
 * Who calls (contract 6.4 "Who"): on AWS the IAM principal API Gateway proved from the request's SigV4 signature
 * (`requestContext.authorizer.iam`, HTTP API payload 2.0); locally nobody is proven, so the caller is
 * `local:unauthenticated` and the body's `actor` stands in for the person.
 */
import type { Caller } from '../../application/ports';
import { isRecord } from '../../domain/errors';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ForbiddenError } from '../../application/errors';

/** The principal recorded locally, where no request is signed: the audit log says so instead of naming nobody. */
export const LOCAL_PRINCIPAL = 'local:unauthenticated';

interface IamIdentity {
  userArn?: string | null;
  callerId?: string | null;
  principalOrgId?: string | null;
  accountId?: string | null;
}

/**
 * The name inside a principal's ARN that a person is known by: an assumed role's session name
 * (`arn:aws:sts::123456789012:assumed-role/HoldbackFinance/alice@example.com` → `alice@example.com`, what SSO and
 * `aws sts assume-role --role-session-name` set), an IAM or federated user's name, `root` for the account root.
 */
export function principalName(userArn: string): string {
  const resource = userArn.split(':').slice(5).join(':');
  if (resource === 'root') return 'root';
  const parts = resource.split('/');
  return parts[parts.length - 1] || userArn;
}

/** The caller of one API request. */
export function callerOf(event: APIGatewayProxyEventV2): Caller {
  // A hand-built event (a test, a tool) may carry no request context at all: nobody is signed in then.
  const authorizer = (event.requestContext as { authorizer?: { iam?: IamIdentity } } | undefined)?.authorizer;
  const iam = authorizer?.iam;
  const principal = iam?.userArn || iam?.callerId;
  if (!iam || !principal) return { principal: LOCAL_PRINCIPAL, authenticated: false, name: null, orgId: null };
  return {
    principal,
    authenticated: true,
    name: iam.userArn ? principalName(iam.userArn) : principal,
    orgId: iam.principalOrgId ?? null,
  };
}

/**
 * A body's `actor` checked against the signed caller: absent, it becomes the principal's name; it must otherwise name
 * the caller (its session or user name, or its whole ARN, letter case aside). Anyone else is refused (403), so the
 * free-text actor of the audit log can no longer name someone other than the signer. Locally it is left as sent.
 * `takesActor` false: the route's body has no actor member, so none is filled in.
 */
export function actorChecked(body: unknown, caller: Caller, takesActor = true): unknown {
  if (!caller.authenticated || !isRecord(body)) return body;
  const actor = body.actor;
  // A body without an actor member (POST /predictions) is left as sent: an actor filled in would be an unknown field.
  if (actor === undefined || actor === null) return takesActor ? { ...body, actor: caller.name } : body;
  return { ...body, actor: actorOfCaller(actor, caller, 'actor') };
}

/** The actor a signed caller may state (body `actor` or the import's `?actor=`), else a 403 naming `field`. */
export function actorOfCaller(actor: unknown, caller: Caller, field: string): unknown {
  if (!caller.authenticated) return actor;
  if (typeof actor !== 'string') return actor; // the use case names the bad type
  const said = actor.trim().toLowerCase();
  if (said === (caller.name ?? '').toLowerCase() || said === caller.principal.toLowerCase()) return actor;
  throw new ForbiddenError('actor_not_caller',
    `${field}: is ${JSON.stringify(actor.slice(0, 80))}, but this request is signed by ${caller.principal}; `
    + `send ${JSON.stringify(caller.name)} (your session or user name) or leave ${field} out, and Holdback records your principal`);
}
