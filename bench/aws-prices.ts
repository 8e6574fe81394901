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

/**
 * The whole bill's other lines (issue 18 item 5), each with where and when it was read. Where only the us-east-1 rate
 * could be read, it is named so: Mumbai's list prices are equal or up to 15% higher for these services.
 */
export const EXTRA_PRICES_AS_OF = '2026-11-26';
export const EXTRA_PRICES = {
  dynamodb: {
    /** Standard table class storage, per GB-month (aws.amazon.com/dynamodb/pricing: "from $0.25"; ap-south-1 list $0.285). */
    storagePerGbMonth: 0.285,
    /** Point-in-time recovery (continuous backups), per GB-month of table size (ap-south-1 list; us-east-1 $0.20). */
    pitrPerGbMonth: 0.228,
    /**
     * Standard-Infrequent Access table class (aws.amazon.com/dynamodb/pricing, read 2026-11-26): storage 60% below
     * Standard's ($0.285 x 0.4 in ap-south-1), every request unit (writes, index writes, reads) 25% above it.
     * Point-in-time recovery is priced per GB of table size alike for both classes.
     */
    infrequentAccessStoragePerGbMonth: 0.114,
    infrequentAccessRequestFactor: 1.25,
  },
  s3: {
    /** S3 Standard, first 50 TB, per GB-month (ap-south-1 list $0.025; Object Lock adds no charge). */
    storagePerGbMonth: 0.025,
    /** PUT, COPY, POST, LIST requests, per 1,000 (ap-south-1 list). */
    per1kPuts: 0.005,
  },
  logs: {
    /** CloudWatch Logs Standard class ingestion, per GB (us-east-1 $0.50, c3x.dev's June 2026 table; Tokyo $0.76). */
    ingestionPerGb: 0.50,
    /** Archived log storage, per GB-month (us-east-1 $0.03), on the uncompressed bytes (an upper bound: AWS bills compressed). */
    storagePerGbMonth: 0.03,
  },
  xray: {
    /** Traces recorded, per million (the first 100,000 a month free: not counted). */
    perMillionTracesRecorded: 5.00,
  },
  /**
   * Typical in-region latencies a Lambda invocation waits for, per call, in ms (p50s as AWS documents and as measured
   * from Lambda in the same region; the gateway's from ap-south-1 to an Indian gateway): what it is billed for waiting.
   */
  latencyMs: { DynamoDB: 6, EventBridge: 15, Scheduler: 25, SQS: 10, KMS: 15, SecretsManager: 20, S3: 25, gateway: 250, default: 20 },
  /**
   * Lambda gives CPU in proportion to memory: "at 1,769 MB, a function has the equivalent of one vCPU" (Lambda developer
   * guide, "Configure Lambda function memory", read 2026-11-26). A function below it computes at that fraction of a
   * core, so its CPU milliseconds are billed as that many more milliseconds of duration.
   */
  lambdaOneVcpuAtMb: 1769,
} as const;

/** The billed milliseconds of `cpuMs` of computing in a function of `memoryMb` (a fraction of a vCPU below 1,769 MB). */
export function lambdaComputeMs(cpuMs: number, memoryMb: number): number {
  return cpuMs / Math.min(1, memoryMb / EXTRA_PRICES.lambdaOneVcpuAtMb);
}
