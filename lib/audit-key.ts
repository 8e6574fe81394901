/** The KMS key that signs audit checkpoints: asymmetric, kept for ever, usable for signing by the checkpoint writer alone. */
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { RUNTIME_ENV } from '../functions/composition-root';
import type { HoldbackFunction } from './holdback-function';

export interface AuditKeyProps {
  /** The checkpoint writer (the sweep): the only principal that may sign. */
  readonly writer: HoldbackFunction;
  /** Functions that read the public key (verification, GET /audit/public-key). */
  readonly readers: HoldbackFunction[];
  /** Keys that signed before this one (replaced, kept): their public keys are still read and listed. */
  readonly previousKeyArns?: string[];
}

/**
 * ECC_NIST_P256 for SIGN_VERIFY. The key policy replaces KMS's default (which lets any IAM policy of the account grant
 * use of the key) and can never be changed (no principal holds kms:PutKeyPolicy; CloudFormation creates it past KMS's
 * lockout check): only the writer's role may sign, and no grant can add another signer. The account may read, tag,
 * describe, enable and disable it (disabling stops new checkpoints: the writer's errors and the alarm show it), not
 * sign, change the policy, create grants or schedule its deletion. Retained on stack deletion: old checkpoints must
 * stay verifiable. To change who signs, a new key is created (new construct id) and the old ARN goes in
 * `holdback:auditPreviousKeyArns`.
 */
export class AuditKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: AuditKeyProps) {
    super(scope, id);
    const account = new iam.AccountRootPrincipal();
    const readers = props.readers.map((fn) => fn.role);
    this.key = new kms.Key(this, 'Key', {
      description: `Holdback (${Stack.of(this).stackName}): signs audit log checkpoints`,
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
      policy: new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({
            sid: 'AccountAdministersButNeitherSignsNorChangesWhoSigns',
            principals: [account],
            actions: ['kms:Describe*', 'kms:List*', 'kms:Get*', 'kms:EnableKey', 'kms:DisableKey', 'kms:UpdateKeyDescription', 'kms:TagResource', 'kms:UntagResource'],
            resources: ['*'],
          }),
          new iam.PolicyStatement({ sid: 'CheckpointWriterSigns', principals: [props.writer.role], actions: ['kms:Sign'], resources: ['*'] }),
          // GetPublicKey for the public half, DescribeKey for its creation date (GET /audit/public-keys' `from`).
          new iam.PolicyStatement({ sid: 'FunctionsReadThePublicKey', principals: readers, actions: ['kms:GetPublicKey', 'kms:DescribeKey'], resources: ['*'] }),
        ],
      }),
    });
    // No principal may change the policy: KMS's lockout check would refuse it without this (that is the point).
    (this.key.node.defaultChild as kms.CfnKey).bypassPolicyLockoutSafetyCheck = true;
    // The key policy names each role itself (no IAM grant needed, and none could add Sign for another role).
    const previous = props.previousKeyArns ?? [];
    for (const fn of props.readers) {
      fn.function.addEnvironment(RUNTIME_ENV.auditKmsKeyId, this.key.keyArn);
      if (previous.length > 0) {
        fn.function.addEnvironment(RUNTIME_ENV.auditPreviousKmsKeyIds, previous.join(','));
        // Old keys' policies delegate GetPublicKey to the account's IAM (this one's statement above does too).
        fn.role.addToPolicy(new iam.PolicyStatement({ actions: ['kms:GetPublicKey', 'kms:DescribeKey'], resources: previous }));
      }
    }
    props.writer.function.addEnvironment(RUNTIME_ENV.auditCheckpointWriter, 'true');
    Validations.of(this.key).acknowledge({
      id: 'AwsSolutions-KMS5',
      reason: 'Asymmetric KMS keys cannot be rotated automatically; an old checkpoint must stay verifiable with the key that signed it.',
    });
  }
}
