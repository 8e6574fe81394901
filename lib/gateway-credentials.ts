/** The gateway's vendor base URL and the secret that holds its client credentials, as the functions receive them. */
import { CfnParameter, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { PLACEHOLDER_CLIENT_ID } from '../functions/definitions/secrets';
import { RUNTIME_ENV } from '../functions/composition-root';

export interface GatewayCredentialsProps {
  /** Default of the `GatewayBaseUrl` parameter; without it, `cdk deploy` needs `--parameters GatewayBaseUrl=...`. */
  readonly baseUrl?: string;
  /** An existing secret (JSON `{"clientId", "clientSecret"}`) to use instead of creating one. */
  readonly secretName?: string;
}

/** The JSON keys of the secret. */
export const GATEWAY_SECRET_KEYS = { clientId: 'clientId', clientSecret: 'clientSecret' } as const;

/**
 * The functions get the secret's ARN, never its value: they read it at run time through Powertools' cache
 * (functions/adapters/secrets), so nobody who can read a function's configuration sees the credentials, and a
 * rotation (put-secret-value) applies within minutes without a deploy.
 *
 * Without `secretName` the stack creates the secret with a placeholder client id; `created` then tells the stack to
 * start with releases paused (the release queue's consumer disabled) until an operator fills it in and deploys with
 * releases enabled. Nothing fails meanwhile: due releases wait in the queue and the sweep keeps them coming.
 */
export class GatewayCredentials extends Construct {
  readonly secret: secretsmanager.ISecret;
  readonly baseUrl: CfnParameter;
  /** Whether this stack created the secret (still holding its placeholder until an operator fills it in). */
  readonly created: boolean;

  constructor(scope: Construct, id: string, props: GatewayCredentialsProps = {}) {
    super(scope, id);
    this.baseUrl = new CfnParameter(scope, 'GatewayBaseUrl', {
      type: 'String',
      description: "The gateway's vendor-settlement base URL (production or sandbox), e.g. https://api.example.com",
      allowedPattern: '^https://[^\\s]+$',
      constraintDescription: 'an https URL without spaces, e.g. https://api.example.com',
      ...(props.baseUrl ? { default: props.baseUrl } : {}),
    });
    this.created = !props.secretName;
    if (props.secretName) {
      this.secret = secretsmanager.Secret.fromSecretNameV2(this, 'Secret', props.secretName);
    } else {
      const created = new secretsmanager.Secret(this, 'Secret', {
        description: 'Holdback: gateway client credentials, JSON {"clientId": "...", "clientSecret": "..."}; releases stay paused until filled in',
        generateSecretString: {
          secretStringTemplate: JSON.stringify({ [GATEWAY_SECRET_KEYS.clientId]: PLACEHOLDER_CLIENT_ID }),
          generateStringKey: GATEWAY_SECRET_KEYS.clientSecret,
          excludePunctuation: true,
        },
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'The gateway issues the client secret; it is rotated in the gateway dashboard and put here by an operator, so Secrets Manager cannot rotate it itself.',
      });
      this.secret = created;
    }
  }

  /** The variables of the gateway client: where the gateway is, and which secret to read (no credential value). */
  environment(): Record<string, string> {
    return {
      [RUNTIME_ENV.gatewayBaseUrl]: this.baseUrl.valueAsString,
      [RUNTIME_ENV.gatewaySecretId]: this.secret.secretArn,
    };
  }

  grantRead(grantee: iam.IGrantable): void {
    this.secret.grantRead(grantee);
  }
}
