/** Secrets Manager: the gateway credentials, read at run time with a cache (Powertools Parameters). */
import { secretsManagerCredentials } from '../../adapters/secrets/secrets-manager-credentials';
import type { AwsAdapters } from '../compose';

export const secretsManager: NonNullable<AwsAdapters['secretsManager']> = (secretId, scrubber) => secretsManagerCredentials(secretId, scrubber);
