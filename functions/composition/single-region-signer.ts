/**
 * Stands in for `@aws-sdk/signature-v4-multi-region` in the bundles of the functions without S3 (lib/holdback-function.ts
 * aliases the package to this file): there only EventBridge's client takes its signer from it. The SDK's multi-region
 * signer is SigV4 for every call but those signed for all regions at once (SigV4a, signing region `*`), which only
 * EventBridge's global endpoints need (PutEvents with an EndpointId: Holdback's publisher names none), and which works
 * only with the CRT or SigV4a package loaded (neither is bundled); it carried about 2 KB gzipped of that into each
 * bundle with EventBridge. This is the SDK's SigV4 signer itself, answering as the multi-region one does when no SigV4a
 * support is loaded (`sigv4aDependency() === 'none'`: the client then picks SigV4 wherever the endpoint offers it), and
 * refusing, with a message, a call the endpoint would let only SigV4a sign.
 */
import { SignatureV4 } from '@smithy/signature-v4';

interface SigningOptions { signingRegion?: string }

function refuseAllRegions(options: SigningOptions | undefined): void {
  if (options?.signingRegion === '*') {
    throw new Error('this bundle signs with SigV4 alone (lib/holdback-function.ts aliases @aws-sdk/signature-v4-multi-region to functions/composition/single-region-signer.ts): a call to a global endpoint, which SigV4a signs, needs that alias removed and SigV4a support bundled');
  }
}

export class SignatureV4MultiRegion extends SignatureV4 {
  /** As the SDK's when neither the CRT nor the JavaScript SigV4a signer is loaded. */
  static sigv4aDependency(): 'none' {
    return 'none';
  }

  // Each answers what SignatureV4's same overload answers (`never` only so that one signature fits all its overloads).
  override async sign(...args: unknown[]): Promise<never> {
    refuseAllRegions(args[1] as SigningOptions | undefined);
    return (super.sign as (...a: unknown[]) => Promise<never>)(...args);
  }

  override async presign(...args: unknown[]): Promise<never> {
    refuseAllRegions(args[1] as SigningOptions | undefined);
    return (super.presign as (...a: unknown[]) => Promise<never>)(...args);
  }
}
