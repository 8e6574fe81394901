/**
 * Stands in for `@smithy/core/event-streams` in the bundles of the functions without S3 (lib/holdback-function.ts
 * aliases the subpath to this file). The SDK's protocol classes reach event streams by a dynamic `import()`, which
 * esbuild cannot drop, so each bundle carried the whole event-stream codec (about 7 KB gzipped) that no operation of
 * DynamoDB, SQS, EventBridge, Scheduler, KMS or Secrets Manager uses. S3's client imports the module's config resolver
 * statically; this file does not export it, so a bundle with S3 and this alias fails to build rather than at run time.
 */
const absent = (): never => {
  throw new Error('this function\'s bundle carries no event-stream support (lib/holdback-function.ts aliases @smithy/core/event-streams for the functions without S3); an operation with an event stream needs the alias removed for its function');
};

/** Asked for only by an operation whose input or output is an event stream: none of these functions' operations. */
export const eventStreamSerdeProvider = absent;

export class EventStreamSerde {
  constructor() {
    absent();
  }
}
