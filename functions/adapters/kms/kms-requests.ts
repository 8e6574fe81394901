/**
 * KMS's JSON API (AWS JSON 1.1: a POST to `/` with `X-Amz-Target: TrentService.<Operation>`), as the SDK's KMS client
 * sends it and signed by the same SigV4 signer (aws-http/signed-request.ts says why there is no SDK client here). Blobs
 * travel as base64 text and times as epoch seconds, which the caller converts.
 */
import { AwsServiceError, SignedRequests, readAll, type AwsTarget } from '../aws-http/signed-request';

export class KmsRequests {
  private readonly http: SignedRequests;

  constructor(target: AwsTarget) {
    this.http = new SignedRequests('kms', target, `kms.${target.region}.amazonaws.com`);
  }

  /** One operation: its input as JSON, its output parsed; an error answer throws, named by KMS's `__type`. */
  async call<T>(operation: 'GetPublicKey' | 'DescribeKey' | 'Sign', input: Record<string, unknown>): Promise<T> {
    const base = this.http.base;
    const answer = await this.http.send({
      method: 'POST', url: base, path: base.pathname || '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${operation}` },
      body: Buffer.from(JSON.stringify(input)),
    });
    const text = (await readAll(answer.stream)).toString('utf8');
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? JSON.parse(text) as Record<string, unknown> : {};
    } catch {
      if (answer.status < 300) throw new AwsServiceError('UnreadableAnswer', `KMS ${operation}: the answer is not JSON: ${text.slice(0, 200)}`, answer.status);
    }
    if (answer.status >= 300) {
      // `__type` may carry a namespace (`com.amazonaws.kms#NotFoundException`) or a suffix after `:`.
      const code = String(parsed.__type ?? answer.headers['x-amzn-errortype'] ?? `Http${answer.status}`).split('#').pop()!.split(':')[0];
      const message = String(parsed.message ?? parsed.Message ?? `KMS answered ${answer.status}`);
      throw new AwsServiceError(code, `KMS ${operation}: ${code}: ${message}`, answer.status);
    }
    return parsed as T;
  }
}
