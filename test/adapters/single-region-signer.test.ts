/**
 * functions/composition/single-region-signer.ts, which the bundles without S3 load instead of the SDK's multi-region
 * signer (EventBridge's): a PutEvents request signed by it carries exactly the SDK signer's headers, and a call that
 * only SigV4a could sign (a global endpoint's, signing region `*`) is refused with a message instead of signed wrongly.
 */
import { SignatureV4MultiRegion as SdkSigner } from '@aws-sdk/signature-v4-multi-region';
import { HttpRequest } from '@smithy/core/protocols';
import { Sha256 } from '../../functions/composition/node-checksums';
import { SignatureV4MultiRegion } from '../../functions/composition/single-region-signer';

const options = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session' },
  region: 'ap-south-1', service: 'events', sha256: Sha256, runtime: 'node',
};

function putEvents() {
  return new HttpRequest({
    method: 'POST', protocol: 'https:', hostname: 'events.ap-south-1.amazonaws.com', path: '/',
    headers: { host: 'events.ap-south-1.amazonaws.com', 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
    body: JSON.stringify({ Entries: [{ Source: 'holdback', DetailType: 'release.applied', Detail: '{"orderId":"o-1"}', EventBusName: 'holdback' }] }),
  });
}

describe('the single-region signer EventBridge\'s client gets in the bundles without S3', () => {
  it('signs a PutEvents request with the SDK multi-region signer\'s very headers', async () => {
    const signingDate = new Date('2026-11-26T10:00:00Z');
    const ours = await new SignatureV4MultiRegion(options).sign(putEvents(), { signingDate }) as HttpRequest;
    const sdk = await new SdkSigner(options).sign(putEvents(), { signingDate }) as HttpRequest;
    expect(ours.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261126\/ap-south-1\/events\/aws4_request/);
    expect(ours.headers).toEqual(sdk.headers);
  });

  it('answers as the SDK\'s does without SigV4a support, and refuses a call only SigV4a signs', async () => {
    expect([SignatureV4MultiRegion.sigv4aDependency(), SdkSigner.sigv4aDependency()]).toEqual(['none', 'none']);
    await expect(new SignatureV4MultiRegion(options).sign(putEvents(), { signingRegion: '*' })).rejects.toThrow(/signs with SigV4 alone .*single-region-signer\.ts/);
    await expect(new SignatureV4MultiRegion(options).presign(putEvents(), { signingRegion: '*' })).rejects.toThrow(/SigV4a/);
  });
});
