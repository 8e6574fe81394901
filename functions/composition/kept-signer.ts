/**
 * One SigV4 signer per SDK client instead of one per call.
 *
 * A client built without a `signer` of its own resolves one for every request: a new SignatureV4 made from a copy of
 * the whole client configuration (about fifty settings, spread into a new object), after awaiting the region again. In
 * the CPU profile of an SDK call that copy was the largest self time of the signing step; kept, a call goes straight
 * to signing (measured without the network: about a tenth less CPU a DynamoDB call). The signer is the one the SDK makes
 * (same class, region, service, credentials provider, hash), made once per signing region and service: the SDK's own
 * signer fixes both on the client's configuration at its first call, so every later one would be made alike. Signing
 * keys are cached by the SDK across signers either way, and credentials are still asked for at each signing, so rotated
 * ones are used.
 */

/** The part of a SigV4 signer this touches (@smithy/signature-v4's SignatureV4). */
interface KeyMaker {
  getSigningKey?: (credentials: object, region: string, shortDate: string, service?: string) => Promise<Uint8Array>;
}

/**
 * The signer's signing keys kept by credentials (the object the provider answers), day, region and service. SigV4's
 * own cache is keyed by an HMAC of the credentials, which it computes again for every call before it looks: a
 * tenth of the signing. A key is the same HMAC chain either way (the secret, the day, the region, the service), so
 * each signature is unchanged; rotated credentials are a new object and get their own keys, and a day's change a new
 * key. The keys of one credentials object are dropped with it (a WeakMap).
 */
function keepSigningKeys<T>(signer: T): T {
  const maker = signer as KeyMaker;
  const make = maker.getSigningKey;
  if (typeof make !== 'function') return signer;
  const keys = new WeakMap<object, Map<string, Promise<Uint8Array>>>();
  maker.getSigningKey = function (this: KeyMaker, credentials, region, shortDate, service) {
    const ofCredentials = keys.get(credentials) ?? new Map<string, Promise<Uint8Array>>();
    keys.set(credentials, ofCredentials);
    const name = `${shortDate}\u0000${region}\u0000${service ?? ''}`;
    let key = ofCredentials.get(name);
    if (!key) {
      // One day's key a scope: the day before's goes when the next day's is made.
      if (ofCredentials.size > 8) ofCredentials.clear();
      key = make.call(this, credentials, region, shortDate, service);
      ofCredentials.set(name, key);
      key.catch(() => ofCredentials.delete(name));
    }
    return key;
  };
  return signer;
}

/** The part of a resolved client configuration this touches (every AWS SDK v3 client with SigV4 has it). */
interface SignerConfig {
  signer?: (authScheme?: { signingRegion?: string; signingName?: string }) => Promise<unknown>;
}

/** Makes `client` reuse the signer its configuration makes (see above); a client without one is left as it is. */
export function keepOneSigner(client: { config: unknown }): void {
  const config = client.config as SignerConfig;
  const make = config.signer;
  if (typeof make !== 'function') return;
  const kept = new Map<string, Promise<unknown>>();
  config.signer = (authScheme) => {
    const key = `${authScheme?.signingRegion ?? ''}\u0000${authScheme?.signingName ?? ''}`;
    let signer = kept.get(key);
    if (!signer) {
      signer = make(authScheme).then(keepSigningKeys);
      kept.set(key, signer);
      // A signer that could not be made (its region unresolved) is asked for again at the next call.
      signer.catch(() => kept.delete(key));
    }
    return signer;
  };
}
