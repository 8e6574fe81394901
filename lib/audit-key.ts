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
}

/**
 * ECC_NIST_P256 for SIGN_VERIFY. The key policy replaces KMS's default (which lets any IAM policy of the account grant
 * use of the key): the account may administer the key but not sign with it; only the writer's role may sign, so a
 * checkpoint's signature proves the writer made it. Retained on stack deletion: old checkpoints must stay verifiable.
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
            sid: 'AccountAdministersButDoesNotSign',
            principals: [account],
            actions: [
              'kms:Create*', 'kms:Describe*', 'kms:Enable*', 'kms:List*', 'kms:Put*', 'kms:Update*', 'kms:Revoke*', 'kms:Disable*',
              'kms:Get*', 'kms:Delete*', 'kms:TagResource', 'kms:UntagResource', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion',
            ],
            resources: ['*'],
          }),
          new iam.PolicyStatement({ sid: 'CheckpointWriterSigns', principals: [props.writer.role], actions: ['kms:Sign'], resources: ['*'] }),
          new iam.PolicyStatement({ sid: 'FunctionsReadThePublicKey', principals: readers, actions: ['kms:GetPublicKey'], resources: ['*'] }),
        ],
      }),
    });
    // The key policy names each role itself (no IAM grant needed, and none could add Sign for another role).
    for (const fn of props.readers) fn.function.addEnvironment(RUNTIME_ENV.auditKmsKeyId, this.key.keyArn);
    props.writer.function.addEnvironment(RUNTIME_ENV.auditCheckpointWriter, 'true');
    Validations.of(this.key).acknowledge({
      id: 'AwsSolutions-KMS5',
      reason: 'Asymmetric KMS keys cannot be rotated automatically; an old checkpoint must stay verifiable with the key that signed it.',
    });
  }
}
