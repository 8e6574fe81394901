/** Calls to Holdback's API on AWS, signed with SigV4 from the caller's own credentials, so their IAM role decides. */
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export interface SignedApiOptions {
  /** The API's base URL, with its stage if it has one: `https://abc123.execute-api.ap-south-1.amazonaws.com/prod`. */
  apiUrl: string;
  /** Needed when the URL does not say it (a custom domain). */
  region?: string;
  /** Default: the SDK's default chain (environment, SSO, profile, container, instance), as the AWS CLI finds them. */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

export interface SignedRequest {
  method: string;
  /** Path below the API's base URL, with its query: `/outcomes?state=FAILED`. Percent-encoded as it goes on the wire. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** `https://{api}.execute-api.{region}.amazonaws.com` names its region. */
export function regionOfApiUrl(apiUrl: string): string | undefined {
  const host = new URL(apiUrl).hostname;
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host)?.[1];
}

/** The URL checked once, with a message that says what to send instead. */
function parseApiUrl(apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new Error(`--api-url "${apiUrl}" is not a URL: send the API's base URL, e.g. https://abc123.execute-api.ap-south-1.amazonaws.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`--api-url "${apiUrl}" is not an http(s) URL: send the API's base URL, e.g. https://abc123.execute-api.ap-south-1.amazonaws.com`);
  }
  if (url.search || url.hash) throw new Error(`--api-url "${apiUrl}" has a query or fragment: send only the base URL (with its stage, if any)`);
  return url;
}

export class SignedApi {
  readonly base: URL;
  readonly region: string;
  private readonly signer: SignatureV4;

  constructor(options: SignedApiOptions) {
    this.base = parseApiUrl(options.apiUrl);
    const region = options.region ?? regionOfApiUrl(options.apiUrl);
    if (!region) throw new Error(`the region of ${options.apiUrl} is not in its host name: add --region (e.g. --region ap-south-1)`);
    this.region = region;
    this.signer = new SignatureV4({
      credentials: options.credentials ?? fromNodeProviderChain(),
      region,
      service: 'execute-api',
      sha256: Sha256,
    });
  }

  /** The URL a path below the base goes to (the base's own path, such as a stage, kept in front). */
  urlOf(path: string): URL {
    const target = new URL(path, 'http://placeholder');
    const url = new URL(this.base.href);
    url.pathname = `${this.base.pathname.replace(/\/+$/, '')}${target.pathname}`;
    url.search = target.search;
    return url;
  }

  /** Signs and sends one request; the answer is returned as it came (a 403 from AWS included), never thrown. */
  async request(request: SignedRequest): Promise<Response> {
    const url = this.urlOf(request.path);
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of url.searchParams) {
      const existing = query[name];
      query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    const body = request.body === undefined || request.body.length === 0 ? undefined : request.body;
    const headers: Record<string, string> = { host: url.host };
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    const signed = await this.signer.sign({
      method: request.method.toUpperCase(),
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query,
      headers,
      body,
    });
    const sent = { ...signed.headers };
    // fetch sets host itself (from the URL); the signed value is the same.
    delete sent.host;
    return fetch(url, { method: signed.method, headers: sent, body, redirect: 'manual' });
  }
}
