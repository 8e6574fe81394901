/**
 * KMS's JSON API (AWS JSON 1.1: a POST to `/` with `X-Amz-Target: TrentService.<Operation>`), as the SDK's KMS client
 * sends it and signed by the same SigV4 signer (aws-http/signed-request.ts says why there is no SDK client here). Blobs
 * travel as base64 text and times as epoch seconds, which the caller converts.
 */
import { SignedRequests, type AwsTarget } from '../aws-http/signed-request';

export class KmsRequests {
  private readonly http: SignedRequests;

  constructor(target: AwsTarget) {
    this.http = new SignedRequests('kms', target, `kms.${target.region}.amazonaws.com`);
  }

  /** One operation: its input as JSON, its output parsed; an error answer throws, named by KMS's `__type`. */
  call<T>(operation: 'GetPublicKey' | 'DescribeKey' | 'Sign', input: Record<string, unknown>): Promise<T> {
    return this.http.json<T>(`KMS ${operation}`, this.http.base, '1.1', `TrentService.${operation}`, input);
  }
}
