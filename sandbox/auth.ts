/** Client-credential and API-version checks of the gateway endpoints; the secret is compared, never echoed. */
import { timingSafeEqual } from 'node:crypto';
import { GatewayError, fieldError, type SandboxContext, type SandboxRequest } from './http';

const API_VERSION = '2022-09-01';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** x-client-id / x-client-secret (any case) must match the sandbox's credentials: otherwise 401. */
export function requireClient(req: SandboxRequest, ctx: SandboxContext): void {
  const id = req.header('x-client-id');
  const secret = req.header('x-client-secret');
  if (id === undefined || secret === undefined) {
    const missing = id === undefined ? 'x-client-id' : 'x-client-secret';
    throw new GatewayError(401, 'authentication_failed', `authentication failed: header ${missing} is missing. Send x-client-id and x-client-secret of your app`);
  }
  if (!sameText(id, ctx.config.clientId) || !sameText(secret, ctx.config.clientSecret)) {
    throw new GatewayError(401, 'authentication_failed', 'authentication failed: the client id and secret do not match. Send the credentials of your app');
  }
}

/** x-api-version is required on /pg and only 2022-09-01 is served. */
export function requireApiVersion(req: SandboxRequest): void {
  const version = req.header('x-api-version');
  if (version === undefined || version.trim() === '') {
    throw fieldError('x-api-version', 'missing', `header is missing. Send x-api-version: ${API_VERSION}`, '');
  }
  if (version !== API_VERSION) {
    throw fieldError('x-api-version', 'invalid', `version not supported by this sandbox. Send x-api-version: ${API_VERSION}`, version);
  }
}

/** Both checks of a credentialed /pg endpoint. */
export function requirePgAccess(req: SandboxRequest, ctx: SandboxContext): void {
  requireClient(req, ctx);
  requireApiVersion(req);
}
