/** The gateway's vendor base URL and client credentials, as the functions' environment receives them. */
import { CfnParameter, SecretValue, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { RUNTIME_ENV } from '../functions/composition-root';

export interface GatewayCredentialsProps {
  /** Default of the `GatewayBaseUrl` parameter; without it, `cdk deploy` needs `--parameters GatewayBaseUrl=...`. */
  readonly baseUrl?: string;
  /** An existing secret (JSON `{"clientId", "clientSecret"}`) to use instead of creating one. */
  readonly secretName?: string;
  /**
   * The secret version the functions get (the VersionId that put-secret-value printed). CloudFormation re-resolves
   * a dynamic reference only when the template changes, so a new version reaches the functions by deploying with
   * its id. @default the current version at the time of the deploy that changes the functions
   */
  readonly secretVersionId?: string;
}

/** The JSON keys of the secret. */
export const GATEWAY_SECRET_KEYS = { clientId: 'clientId', clientSecret: 'clientSecret' } as const;

/**
 * Choice: the credentials reach the functions as CloudFormation dynamic references
 * (`{{resolve:secretsmanager:...}}`), which CloudFormation resolves at deploy time. The repository and the synthesized
 * template hold only the reference, never the value, and the functions need no Secrets Manager permission or call at
 * cold start (composition-root.ts reads `HOLDBACK_GATEWAY_CLIENT_SECRET` from the environment). The price: Lambda
 * stores the resolved value in the function configuration (encrypted at rest, readable by whoever may call
 * lambda:GetFunctionConfiguration), and a changed secret reaches the functions only through a deploy that changes
 * the template: pass the new version's id (`secretVersionId`).
 */
export class GatewayCredentials extends Construct {
  readonly secret: secretsmanager.ISecret;
  readonly baseUrl: CfnParameter;
  private readonly secretVersionId: string | undefined;

  constructor(scope: Construct, id: string, props: GatewayCredentialsProps = {}) {
    super(scope, id);
    this.secretVersionId = props.secretVersionId;
    this.baseUrl = new CfnParameter(scope, 'GatewayBaseUrl', {
      type: 'String',
      description: "The gateway's vendor-settlement base URL (production or sandbox), e.g. https://api.example.com",
      allowedPattern: '^https://[^\\s]+$',
      constraintDescription: 'an https URL without spaces, e.g. https://api.example.com',
      ...(props.baseUrl ? { default: props.baseUrl } : {}),
    });
    if (props.secretName) {
      this.secret = secretsmanager.Secret.fromSecretNameV2(this, 'Secret', props.secretName);
    } else {
      // The operator replaces the placeholder values with the gateway's credentials, then deploys with the new version.
      const created = new secretsmanager.Secret(this, 'Secret', {
        description: 'Holdback: gateway client credentials, JSON {"clientId": "...", "clientSecret": "..."}; fill in, then cdk deploy',
        generateSecretString: {
          secretStringTemplate: JSON.stringify({ [GATEWAY_SECRET_KEYS.clientId]: 'replace-with-the-gateway-client-id' }),
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

  /** The environment variables of the gateway client. */
  environment(): Record<string, string> {
    const reference = (jsonField: string): string => SecretValue.secretsManager(this.secret.secretArn, {
      jsonField, ...(this.secretVersionId ? { versionId: this.secretVersionId } : {}),
    }).unsafeUnwrap();
    return {
      [RUNTIME_ENV.gatewayBaseUrl]: this.baseUrl.valueAsString,
      [RUNTIME_ENV.gatewayClientId]: reference(GATEWAY_SECRET_KEYS.clientId),
      [RUNTIME_ENV.gatewayClientSecret]: reference(GATEWAY_SECRET_KEYS.clientSecret),
    };
  }
}
