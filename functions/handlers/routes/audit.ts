/** The audit log's routes (contract 6.2): verification, export as JSON lines, the public key; and an order's timeline. */
import { CHECKPOINTS_LIMIT, auditPublicKey, auditPublicKeys, exportAuditLog, listAuditCheckpoints, proofStream, proveAuditStream } from '../../application/audit/audit-log-views';
import { VERIFICATION_BODY, startAuditVerification, verifyAuditLogOrJob } from '../../application/audit/verify-job';
import { jobView } from '../../application/job-views';
import { AUDIT_VERIFY_INLINE_RECORDS, type Dependencies, type StoredJob } from '../../application/ports';
import { viewOrderTimeline } from '../../application/reads/view-order-timeline';
import { json } from '../http';
import { HEX64, ID, TOO_LARGE_ON_AWS, nullable, ok, ref, responses } from '../schema/openapi-parts';
import { count, id, parsed } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import { streamedResult } from '../streamed-body';
import { RANGE_FROM, RANGE_TO } from '../schema/ranges';
import type { ApiRoute } from './route';
import { groupedCount } from '../../../kit/money-format';

const INLINE_RECORDS = groupedCount(AUDIT_VERIFY_INLINE_RECORDS);

/** The verification job's answer (contract 6.3): its `result` is the answer GET /audit/verify would give. */
const VERIFICATION_JOB = (when: string) => ok(`${when}: the job (kind \`audit_verify\`) that verifies the log in the jobs function, in steps of records (its \`done\` grows as they are checked); GET /jobs/{jobId} until it has succeeded, and its \`result\` is exactly the answer of GET /audit/verify (AuditVerification).`, { type: 'object', required: ['job'], properties: { job: ref('Job') } });

async function jobAnswer(deps: Dependencies, job: StoredJob) {
  return json(202, { job: jobView(job, (await deps.settings.get()).timezone) });
}

export const AUDIT_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'GET', path: '/audit/verify', summary: 'Verify the hash-chained, signed audit log',
    description: `On AWS it verifies the write-once copy (S3, Object Lock) and compares the table with it: a record or checkpoint in the copy but deleted or changed in the table is a broken link; what the copy does not hold yet (it follows within about a minute) is read from the table. Locally the table is the log. A log of more than ${INLINE_RECORDS} signed records (HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS; counted from the writer's signed-head pointers, a bounded read) is verified by a job instead: 202 {job}, as POST /audit/verifications.`,
    responses: responses({
      200: ok('The first broken link (null: none), and what was checked.', ref('AuditVerification')),
      202: VERIFICATION_JOB(`The log holds more than ${INLINE_RECORDS} signed records (HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS), more than one answer verifies inside API Gateway's 30 s`),
    }),
    handle: async (_r, deps) => {
      const d = await deps();
      const outcome = await verifyAuditLogOrJob(d);
      return outcome.job === null ? json(200, outcome.verification) : jobAnswer(d, outcome.job);
    },
  }),
  defineRoute({
    method: 'POST', path: '/audit/verifications', summary: 'Verify the audit log as a job, whatever its size (contract 6.3)',
    body: VERIFICATION_BODY,
    responses: responses({ 202: VERIFICATION_JOB('Always') }, { 400: 'A bad body (only actor is a field); no job was started.' }),
    handle: async ({ body }, deps) => {
      const d = await deps();
      return jobAnswer(d, await startAuditVerification(d, body));
    },
  }),
  defineRoute({
    method: 'GET', path: '/audit/export', summary: 'Audit records and signed checkpoints as JSON lines',
    description: 'On AWS the lines come from the write-once copy (S3, Object Lock), with what the table holds that the copy does not yet; locally from the table.',
    query: { from: RANGE_FROM, to: RANGE_TO },
    responses: responses({ 200: { description: 'A header line, the checkpoints, then the records: one JSON object per line.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } } }, { 400: 'Bad range.', 413: TOO_LARGE_ON_AWS }),
    handle: async ({ query }, deps) => streamedResult(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': 'attachment; filename="holdback-audit.ndjson"',
    }, await exportAuditLog(await deps(), query)),
  }),
  defineRoute({
    method: 'GET', path: '/audit/public-key', summary: 'The public key that verifies checkpoints (PEM)',
    responses: responses({ 200: { description: 'PEM.', content: { 'application/x-pem-file': { schema: { type: 'string' } } } } }, { 404: 'No audit key is configured in this runtime.' }),
    handle: async (_r, deps) => ({ statusCode: 200, headers: { 'content-type': 'application/x-pem-file' }, body: await auditPublicKey(await deps()) }),
  }),
  defineRoute({
    method: 'GET', path: '/audit/checkpoints', summary: 'The newest signed checkpoints, newest first, with their hashes',
    description: 'Each checkpoint signs the head of every stream and links to the one before it by previousHash; the whole checkpoint (its heads and signature) is in GET /audit/export.',
    query: { limit: count(1, CHECKPOINTS_LIMIT.max, CHECKPOINTS_LIMIT.fallback, 'How many.') },
    responses: responses({ 200: ok('Newest first.', { type: 'object', required: ['items'], additionalProperties: false, properties: { items: { type: 'array', items: {
      type: 'object', additionalProperties: false,
      required: ['number', 'at', 'coveredUntil', 'hash', 'previousHash', 'root', 'keyId', 'algorithm', 'streams'],
      properties: {
        number: { type: 'integer', description: '1, 2, 3... without gaps.' }, at: { type: 'string', format: 'date-time', description: 'When it was written (UTC).' },
        coveredUntil: { type: 'string', format: 'date-time', description: 'Records stored up to this instant (UTC) were looked at.' },
        hash: HEX64, previousHash: HEX64, root: nullable(HEX64), keyId: { type: 'string', description: 'The key that signed it (GET /audit/public-keys).' },
        algorithm: { type: 'string' }, streams: { type: 'integer', description: 'Stream heads it signs.' },
      },
    } } } }) }, { 400: 'Bad limit.' }),
    handle: async ({ query }, deps) => json(200, await listAuditCheckpoints(await deps(), { limit: query.limit })),
  }),
  defineRoute({
    method: 'GET', path: '/audit/public-keys', summary: 'Every key that ever signed a checkpoint: a checkpoint verifies under the key its keyId names',
    responses: responses({ 200: ok('Oldest first, the current key last.', { type: 'array', items: ref('AuditPublicKey') }) }, { 404: 'No audit key is configured in this runtime.' }),
    handle: async (_r, deps) => json(200, await auditPublicKeys(await deps())),
  }),
  defineRoute({
    method: 'GET', path: '/audit/proof', summary: "One stream's proof against a signed checkpoint: its records, the checkpoint, the head's inclusion path",
    // The stream's name is checked by the use case (order#, vendor# or config), which names it and what to send.
    query: { stream: parsed('The stream: order#<orderId> (URL-encoded order%23<orderId>), vendor#<vendorId> or config.', { type: 'string' }, (stream) => proofStream({ stream }), { required: true, example: 'order#order_1' }) },
    responses: responses({ 200: ok('Checked offline by `holdback audit prove <orderId>`; `checkpoint` is null while no checkpoint has signed the stream.', ref('AuditProof')) }, { 400: 'stream missing or not a stream name.', 404: 'No such stream in the audit log.' }),
    handle: async ({ query }, deps) => json(200, await proveAuditStream(await deps(), query)),
  }),
  defineRoute({
    method: 'GET', path: '/orders/{orderId}/timeline', summary: "The order's whole story in time order", params: { orderId: id('order_1001') },
    responses: responses({ 200: ok('Entries with at, kind, vendorId?, actor? and detail.', { type: 'object', required: ['orderId', 'items'], properties: { orderId: ID, items: { type: 'array', items: ref('TimelineItem') } } }) }, { 400: 'Bad order id.', 404: 'Unknown order.' }),
    handle: async ({ params }, deps) => json(200, await viewOrderTimeline(await deps(), params.orderId)),
  }),
];
