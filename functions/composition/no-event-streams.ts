/**
 * Stands in for `@smithy/core/event-streams` in every function's bundle (lib/holdback-function.ts aliases the subpath
 * to this file). The SDK's protocol classes reach event streams by a dynamic `import()`, which esbuild cannot drop, and
 * S3's client imports the module's config resolver statically, so each bundle carried the whole event-stream codec
 * (about 7 KB gzipped) that no operation Holdback calls uses: event streams are S3's SelectObjectContent and other
 * services' streaming calls, none of them Holdback's (S3: PutObject, GetObject, ListObjectsV2, the multipart upload of
 * an export and pre-signed links). S3's client is built with a marshaller of this file, each of whose uses fails.
 */
const absent = (): never => {
  throw new Error('this function\'s bundle carries no event-stream support (lib/holdback-function.ts aliases @smithy/core/event-streams to functions/composition/no-event-streams.ts); an operation with an event stream needs that alias removed');
};

/** A marshaller that refuses every event stream: what S3's client is built with (see resolveEventStreamSerdeConfig). */
export const eventStreamSerdeProvider = (): { serialize: () => never; deserialize: () => never } => ({ serialize: absent, deserialize: absent });

/** As the SDK's own resolver: the client's config gets the marshaller its provider makes (here, the refusing one). */
export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(input: T): T & { eventStreamMarshaller: unknown } =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

export class EventStreamSerde {
  constructor() {
    absent();
  }
}
