/**
 * AWS prices for the bench's bill, one region, each with the date it was taken: on-demand list prices, USD, before
 * free tiers (a bill per million orders should not depend on an account's age). Change them here only.
 */
export const PRICE_REGION = 'ap-south-1';
/** When these prices were copied from the AWS pricing pages (ap-south-1, Asia Pacific (Mumbai)). */
export const PRICES_AS_OF = '2026-11-24';

export const PRICES = {
  dynamodb: {
    /** On-demand, Standard table class, per million write request units (after the 2024-11-01 on-demand price cut). */
    perMillionWriteUnits: 0.7116,
    /** Per million read request units (a strongly consistent 4 KB read is 1, eventually consistent 0.5). */
    perMillionReadUnits: 0.1423,
  },
  lambda: {
    /** Per million requests. */
    perMillionRequests: 0.20,
    /** arm64, per GB-second (first 7.5 billion GB-seconds a month). */
    perGbSecondArm64: 0.0000133334,
  },
  eventbridge: {
    /** Custom events put on a bus, per million 64 KB chunks. Rule deliveries to Lambda are not charged. */
    perMillionCustomEvents: 1.00,
  },
  scheduler: {
    /** Per million scheduled invocations. CreateSchedule/DeleteSchedule requests are not charged. */
    perMillionInvocations: 1.00,
  },
  sqs: {
    /** Standard queue, per million requests (each 64 KB chunk of a request's payload is one request). */
    perMillionRequests: 0.40,
  },
  secretsManager: {
    perSecretMonth: 0.40,
    /** Per 10,000 API calls (GetSecretValue). */
    per10kCalls: 0.05,
  },
  kms: {
    perKeyMonth: 1.00,
    /** Per 10,000 asymmetric requests (ECC_NIST_P256 Sign), the dearer asymmetric rate. */
    per10kAsymmetricRequests: 0.15,
  },
  apiGatewayHttp: {
    /** HTTP API, per million requests (first 300 million a month; metered in 512 KB increments). */
    perMillionRequests: 1.00,
  },
} as const;
