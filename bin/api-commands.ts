/** The CLI's commands over Holdback's API: settings, policies, vendors, orders, outcomes, forecasts, releases, holds, imports, audit, predictions. */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  accuracyView, approvalsView, cellText, columns, decisionView, forecastView, importView, jobsView, orderView, outcomesView, pendingApprovalView, previewView,
  shellWord, vendorsView,
} from './cli-views';
import type { SignedApi } from './signed-api';

export const API_USAGE = `commands over the API (default --api-url http://127.0.0.1:4000; an AWS URL is called with SigV4 from your credentials):
  settings [get|history]                         the settings in force, or every version
  settings set|preview key=value ... --actor A --reason R [--preview-id P]
  policy get|history <vendorId>
  policy set|preview <vendorId> --rule at_max|immediate|after_payment|after_delivery [--delay P2D] [--schedule-option 1]
                     --actor A --reason R [--apply-to new_orders|open_orders] [--preview-id P] [--expected-version N]
                     [--max-exposure INR=50000.00,USD=500.00]  the most early-released money at risk at once, per currency
  vendors [--check-gateway]                      every vendor: policy, hold, open money and exposure per currency (--check-gateway: the gateway's view instead of the exposure column)
  order <orderId>                                one order, each vendor's release with its reason
  timeline <orderId>                             the order's whole story
  outcomes [--vendor V] [--order O] [--state S] [--from D] [--to D] [--by transaction|applied|settled] [--limit N] [--cursor C]
  forecast [--vendor V] [--from D] [--to D]      expected settlements per India-time day
  release <orderId> <vendorId> --actor A --reason R [--at T] [--override] [--past-ok]
                     --at: the eligibility (India time or ISO with offset; default the next minute the gateway takes);
                     a time that has passed is refused unless --past-ok (then it goes with the next minute)
  retry <orderId> <vendorId> --actor A --reason R
  hold|unhold <vendorId> --actor A --reason R [--source finance|risk|dispute|vendor_request]
                     lifting a hold needs its source or a stronger one (strongest first: dispute, risk, finance, vendor_request)
  import <file.csv> --actor A [--apply]          a dry run unless --apply
  accuracy [--from D] [--to D]                   predicted against actual settlements per schedule option
  audit verify | audit export [--from D] [--to D]
  predict <eligibility> <scheduleOption>         when an eligibility settles
  jobs [--state S] [--kind K] [--limit N] [--cursor C]   bulk work and exports, newest first
  job <jobId>                                    one job (--wait: until it ends, with a progress bar)
  jobs cancel <jobId> [--actor A] [--reason R]   stop a job that has not ended (its remaining steps are skipped)
  export outcomes [--format csv|jsonl] [--vendor V] [--order O] [--state S] [--from D] [--to D] [--by B] [--out FILE]
  export audit [--from D] [--to D] [--out FILE]  a file of any size, written by a job and downloaded to FILE
  approvals [list] [--state pending|approved|rejected|expired] [--limit N] [--cursor C]   four eyes: what waits for a second person
  approvals approve|reject <approvalId> --reason R [--actor A]   decide another person's change (never your own)
  whoami                                         who the API takes you to be (your IAM principal on AWS; unauthenticated locally)
options: --json (the API's JSON as is, for scripts), --csv (outcomes), --api-url URL, --region R (AWS, when the URL does not name it),
  --no-wait (hold, unhold, policy set, export, a preview that became a job: print the job id instead of waiting for the job with a progress bar)
on AWS --actor may be left out: your IAM principal's name is recorded (an --actor naming someone else is refused)
exit codes: 0 done; 1 refused by the API (or an import with errors, dry run included); 2 a wrong command line (an unknown flag is named);
  3 waiting for a second person (four eyes): nothing changed yet, the answer names the approval`;

/** A refusal of the command line itself (exit 2), as opposed to one of the API (exit 1). */
export class UsageError extends Error {}

const OPTIONS = {
  json: { type: 'boolean' }, csv: { type: 'boolean' }, 'api-url': { type: 'string' }, region: { type: 'string' },
  actor: { type: 'string' }, reason: { type: 'string' }, 'preview-id': { type: 'string' }, 'expected-version': { type: 'string' },
  rule: { type: 'string' }, delay: { type: 'string' }, 'schedule-option': { type: 'string' }, 'apply-to': { type: 'string' },
  vendor: { type: 'string' }, order: { type: 'string' }, state: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' },
  by: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, at: { type: 'string' }, override: { type: 'boolean' },
  'past-ok': { type: 'boolean' }, apply: { type: 'boolean' }, 'no-wait': { type: 'boolean' }, wait: { type: 'boolean' }, kind: { type: 'string' },
  format: { type: 'string' }, out: { type: 'string' }, 'check-gateway': { type: 'boolean' },
  source: { type: 'string' }, 'max-exposure': { type: 'string' },
} as const;

type Options = Partial<Record<keyof typeof OPTIONS, string | boolean>>;
type Json = Record<string, any>;
interface Call {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  raw?: boolean;
  /** The human view of the answer (default: a generic table). */
  view?: (body: Json) => string;
  /** The exit code of a successful answer that still reports a problem (a dry run with errors: 1). */
  exitOf?: (body: Json) => number;
}

/** Where calls go: plain HTTP to a local API, SigV4-signed to anything else. */
interface ApiClient {
  call(request: Call): Promise<{ status: number; contentType: string; text: string }>;
}

/** A local API (plain HTTP on loopback), as opposed to one on AWS that is called with SigV4. */
function isLocalApi(apiUrl: string): boolean {
  return /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(apiUrl);
}

export function apiClientFor(apiUrl: string, region?: string): ApiClient {
  const local = isLocalApi(apiUrl);
  // Loaded only for AWS: the credential chain is heavy, and the local API needs no signature.
  let signer: Promise<SignedApi> | null = null;
  return {
    async call({ method, path, body, contentType }) {
      const signed = local ? null : await (signer ??= import('./signed-api').then((m) => new m.SignedApi({ apiUrl, region })));
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': contentType ?? 'application/json' };
      const answer = signed
        ? await signed.request({ method, path, headers, body: payload })
        : await fetch(`${apiUrl.replace(/\/+$/, '')}${path}`, { method, headers, body: payload });
      return { status: answer.status, contentType: answer.headers.get('content-type') ?? '', text: await answer.text() };
    },
  };
}

const seg = (value: string | undefined, what: string): string => {
  if (!value) throw new UsageError(`${what} is missing`);
  return encodeURIComponent(value);
};

function required(options: Options, name: keyof typeof OPTIONS): string {
  const value = options[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is missing; every change records who made it and why`);
  return value;
}

function queryOf(pairs: Record<string, string | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(pairs)) if (v !== undefined && v !== false) q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** `key=value` words as a settings body: numbers and lists (comma-separated holidays) read as such. */
function settingsBody(words: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at < 1) throw new UsageError(`"${word}" is not key=value; e.g. deferByDays=15 holidays=2022-12-25,2023-01-26`);
    const [k, v] = [word.slice(0, at), word.slice(at + 1)];
    body[k] = k === 'holidays' ? (v ? v.split(',') : []) : /^-?\d+$/.test(v) ? Number(v) : v;
  }
  return body;
}

function policyBody(options: Options, preview = false): Record<string, unknown> {
  const kind = required(options, 'rule');
  const option = options['schedule-option'];
  // A preview records nothing: who and why may wait for the set that applies it.
  const who = preview && !options.actor && !options.reason ? {} : { actor: required(options, 'actor'), reason: required(options, 'reason') };
  return {
    scheduleOption: typeof option === 'string' ? Number(option) : 1,
    release: options.delay ? { kind, delay: options.delay } : { kind },
    ...who,
    ...(options['apply-to'] ? { applyTo: options['apply-to'] } : {}),
    ...(options['preview-id'] ? { previewId: options['preview-id'] } : {}),
    ...(options['expected-version'] ? { expectedVersion: Number(options['expected-version']) } : {}),
    ...(typeof options['max-exposure'] === 'string' ? { maxExposure: maxExposureOf(options['max-exposure']) } : {}),
  };
}

/** Whether the API is signed (AWS): the actor may then be left out, the API records the principal's name. */
let signedApi = false;
const action = (options: Options): Record<string, unknown> => ({
  ...(signedApi && options.actor === undefined ? {} : { actor: required(options, 'actor') }), reason: required(options, 'reason'),
});

/** `--max-exposure INR=50000.00,USD=500.00` as the API's `{"INR": "50000.00", "USD": "500.00"}` (amounts stay text). */
function maxExposureOf(text: string): Record<string, string> {
  const caps: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [currency, amount, extra] = part.split('=');
    if (!currency || amount === undefined || extra !== undefined) throw new UsageError(`--max-exposure: "${part}" is not CURRENCY=AMOUNT; send e.g. --max-exposure INR=50000.00,USD=500.00`);
    caps[currency.trim()] = amount.trim();
  }
  return caps;
}

const holdAction = (options: Options): Record<string, unknown> => ({ ...action(options), ...(typeof options.source === 'string' ? { source: options.source } : {}) });

/** The API call a command line stands for. */
function callOf(words: string[], options: Options): Call {
  const [command, sub, ...rest] = words;
  switch (command) {
    case 'settings':
      if (!sub || sub === 'get') return { method: 'GET', path: '/settings' };
      if (sub === 'history') return { method: 'GET', path: '/settings/history' };
      if (sub === 'set') return { method: 'PUT', path: '/settings', body: { ...settingsBody(rest), ...action(options), ...(options['preview-id'] ? { previewId: options['preview-id'] } : {}) } };
      if (sub === 'preview') {
        return {
          method: 'POST', path: '/settings/preview', body: settingsBody(rest),
          view: (answer) => `${previewView(answer)}\napply exactly this preview with:\n  ${applyCommand(['settings', 'set', ...rest], answer.previewId, options)}\n`,
        };
      }
      break;
    case 'policy': {
      const vendor = seg(rest[0], '<vendorId>');
      if (sub === 'get') return { method: 'GET', path: `/vendors/${vendor}/policy` };
      if (sub === 'history') return { method: 'GET', path: `/vendors/${vendor}/policy/history` };
      if (sub === 'set') return { method: 'PUT', path: `/vendors/${vendor}/policy`, body: policyBody(options) };
      if (sub === 'preview') {
        return {
          method: 'POST', path: `/vendors/${vendor}/policy/preview`, body: policyBody(options, true),
          view: (answer) => `${previewView(answer)}\napply exactly this preview with:\n  ${applyCommand(['policy', 'set', rest[0], ...policyFlags(options)], answer.previewId, options)}\n`,
        };
      }
      break;
    }
    case 'vendors': return { method: 'GET', path: `/vendors${queryOf({ limit: options.limit as string, cursor: options.cursor as string, checkGateway: options['check-gateway'] ? 'true' : undefined })}`, view: vendorsView };
    case 'order': return { method: 'GET', path: `/orders/${seg(sub, '<orderId>')}`, view: orderView };
    case 'timeline': return { method: 'GET', path: `/orders/${seg(sub, '<orderId>')}/timeline` };
    case 'outcomes':
      return {
        method: 'GET',
        raw: options.csv === true,
        path: `/outcomes${queryOf({
          vendorId: options.vendor as string, orderId: options.order as string, state: options.state as string, from: options.from as string,
          to: options.to as string, by: options.by as string, limit: options.limit as string, cursor: options.cursor as string,
          format: options.csv ? 'csv' : undefined,
        })}`,
        view: outcomesView,
      };
    case 'forecast': return { method: 'GET', path: `/forecast${queryOf({ vendorId: options.vendor as string, from: options.from as string, to: options.to as string })}`, view: forecastView };
    case 'release':
      return {
        method: 'POST',
        path: `/orders/${seg(sub, '<orderId>')}/vendors/${seg(rest[0], '<vendorId>')}/release`,
        body: { ...action(options), ...(options.at ? { at: options.at } : {}), ...(options.override ? { override: true } : {}), ...(options['past-ok'] ? { confirmPast: true } : {}) },
      };
    case 'retry': return { method: 'POST', path: `/orders/${seg(sub, '<orderId>')}/vendors/${seg(rest[0], '<vendorId>')}/retry`, body: action(options) };
    case 'hold':
    case 'unhold':
      return { method: 'POST', path: `/vendors/${seg(sub, '<vendorId>')}/${command}`, body: holdAction(options) };
    case 'import': {
      if (!sub) throw new UsageError('<file.csv> is missing');
      let csv: string;
      try {
        csv = readFileSync(sub, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${sub}: ${(error as Error).message}`);
      }
      return {
        method: 'POST', path: `/policies/import${queryOf({ dryRun: options.apply ? 'false' : 'true', actor: required(options, 'actor') })}`, body: csv, contentType: 'text/csv',
        view: importView,
        // A file with errors is a failure, dry run or not, so that a script stops there.
        exitOf: (answer) => ((answer.errors as unknown[] | undefined)?.length ? 1 : 0),
      };
    }
    case 'accuracy': return { method: 'GET', path: `/reports/prediction-accuracy${queryOf({ from: options.from as string, to: options.to as string })}`, view: accuracyView };
    case 'audit':
      // A long log answers 202 {job} (kind audit_verify): waited for with a progress bar, its result printed as the answer.
      if (sub === 'verify') return { method: 'GET', path: '/audit/verify' };
      if (sub === 'export') return { method: 'GET', raw: true, path: `/audit/export${queryOf({ from: options.from as string, to: options.to as string })}` };
      break;
    case 'jobs':
      if (sub === 'cancel') {
        const who = Object.fromEntries(Object.entries({ actor: options.actor, reason: options.reason }).filter(([, v]) => typeof v === 'string'));
        return { method: 'POST', path: `/jobs/${seg(rest[0], '<jobId>')}/cancel`, body: who };
      }
      return { method: 'GET', path: `/jobs${queryOf({ state: options.state as string, kind: options.kind as string, limit: options.limit as string, cursor: options.cursor as string })}`, view: jobsView };
    case 'job': return { method: 'GET', path: `/jobs/${seg(sub, '<jobId>')}` };
    case 'whoami': return { method: 'GET', path: '/whoami' };
    case 'approvals':
      if (!sub || sub === 'list') {
        return { method: 'GET', path: `/approvals${queryOf({ state: options.state as string, limit: options.limit as string, cursor: options.cursor as string })}`, view: approvalsView };
      }
      if (sub === 'approve' || sub === 'reject') {
        return { method: 'POST', path: `/approvals/${seg(rest[0], '<approvalId>')}/${sub}`, body: action(options), view: decisionView };
      }
      break;
    case 'export':
      if (sub === 'audit') return { method: 'POST', path: '/exports', body: { kind: 'audit', ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) } };
      if (sub === 'outcomes') {
        const filters = Object.fromEntries(Object.entries({
          vendorId: options.vendor, orderId: options.order, state: options.state, from: options.from, to: options.to, by: options.by,
        }).filter(([, v]) => typeof v === 'string'));
        return { method: 'POST', path: '/exports', body: { kind: 'outcomes', format: (options.format as string | undefined) ?? 'csv', filters } };
      }
      break;
    case 'predict':
      if (!sub || !rest[0]) throw new UsageError('usage: holdback predict <eligibility> <scheduleOption>, e.g. holdback predict "2022-12-06 09:00:00" 1');
      return { method: 'POST', path: '/predictions', body: { eligibility: sub, scheduleOption: Number(rest[0]) } };
    default:
      break;
  }
  throw new UsageError(`unknown command "${words.join(' ')}"\n${API_USAGE}`);
}

/** A list of records as an aligned table (one column per key, fitted to 120 columns), a record as key: value lines. */
export function table(value: unknown): string {
  const rows = Array.isArray(value) ? value : null;
  if (rows && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
    return columns(keys, rows.map((r) => keys.map((k) => cellText((r as Record<string, unknown>)[k]))));
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    // The list a page or report carries (items, vendors, versions, days...) as a table under the other fields.
    const list = entries.find(([, v]) => Array.isArray(v) && (v as unknown[]).every((x) => x && typeof x === 'object'));
    const width = Math.max(...entries.map(([k]) => k.length));
    const head = entries.filter(([k]) => k !== list?.[0]).map(([k, v]) => `${k.padEnd(width)}  ${cellText(v)}`).join('\n');
    return `${head}${head ? '\n' : ''}${list ? `\n${list[0]}:\n${table(list[1])}` : ''}`;
  }
  return `${cellText(value)}\n`;
}

/** The policy flags a preview was given, to repeat in the command that applies it. */
function policyFlags(options: Options): string[] {
  const flags = ['--rule', String(options.rule)];
  if (options.delay) flags.push('--delay', String(options.delay));
  flags.push('--schedule-option', String(options['schedule-option'] ?? 1));
  if (options['apply-to']) flags.push('--apply-to', String(options['apply-to']));
  if (options['max-exposure']) flags.push('--max-exposure', String(options['max-exposure']));
  return flags;
}

/** The command that applies exactly what a preview showed (its previewId), with who and why to fill in if not given. */
function applyCommand(words: string[], previewId: string, options: Options): string {
  const who = ['--actor', typeof options.actor === 'string' ? options.actor : '<you>', '--reason', typeof options.reason === 'string' ? options.reason : '<why>'];
  return ['npx', 'holdback', ...words, '--preview-id', previewId, ...who].map((w) => (w.startsWith('<') ? w : shellWord(w))).join(' ');
}

/** The API's names for what the CLI takes as flags: a refusal is told in the CLI's own words. */
const FLAG_OF_FIELD: Record<string, string> = {
  actor: '--actor', reason: '--reason', 'release.kind': '--rule', release: '--rule', 'release.delay': '--delay', delay: '--delay',
  scheduleOption: '--schedule-option', applyTo: '--apply-to', previewId: '--preview-id', expectedVersion: '--expected-version',
  at: '--at', override: '--override', state: '--state', from: '--from', to: '--to',
  by: '--by', limit: '--limit', cursor: '--cursor', confirmPast: '--past-ok', source: '--source', maxExposure: '--max-exposure',
  // An export's filters (POST /exports) are the outcome flags.
  'filters.vendorId': '--vendor', 'filters.orderId': '--order', 'filters.state': '--state', 'filters.from': '--from', 'filters.to': '--to',
  'filters.by': '--by', format: '--format',
};

/** An API refusal in the CLI's words: each issue under its flag, `"override": true` as `--override`. */
export function refusalText(error: { code?: string; message?: string; issues?: { field: string; problem: string; expected: string }[] }): string {
  const words = (text: string) => text
    .replace(/"override": ?true/g, '--override')
    .replace(/`?applyTo: "open_orders"`?/g, '--apply-to open_orders');
  if (error.issues?.length) {
    return `${error.code}:\n${error.issues.map((i) => `  ${FLAG_OF_FIELD[i.field] ?? i.field}: ${words(i.problem)}; send ${words(i.expected)}`).join('\n')}`;
  }
  return `${error.code}: ${words(error.message ?? '')}`;
}

export interface ApiCommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs one command line; answers the exit code (0 done, 1 refused by the API, 2 a wrong command line). */
export async function runApiCommand(argv: string[], io: ApiCommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${(error as Error).message}\n${API_USAGE}\n`);
    return 2;
  }
  const options = parsed.values as Options;
  const apiUrl = (options['api-url'] as string | undefined) ?? process.env.HOLDBACK_API_URL ?? `http://127.0.0.1:${process.env.HOLDBACK_API_PORT ?? 4000}`;
  signedApi = !isLocalApi(apiUrl);
  let call: Call;
  try {
    call = callOf(parsed.positionals, options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n`);
    return 2;
  }
  let answer;
  const client = apiClientFor(apiUrl, options.region as string | undefined);
  try {
    answer = await client.call(call);
  } catch (error) {
    io.err(`cannot reach the Holdback API at ${apiUrl}: ${(error as Error).message}; start it with npm start, or pass --api-url\n`);
    return 1;
  }
  const isJson = answer.contentType.startsWith('application/json');
  if (answer.status >= 400) {
    const body = isJson ? (JSON.parse(answer.text) as { error?: Parameters<typeof refusalText>[0]; message?: string; Message?: string }) : null;
    const why = body?.error ? refusalText(body.error) : body?.message ?? body?.Message ?? answer.text.slice(0, 300);
    const role = answer.status === 403 ? ' (refused by AWS: your IAM role may not call this route)' : '';
    // The API's body flags in the command line's words.
    const hint = /"confirmPast": true/.test(why) ? ' (on the command line: --past-ok)' : '';
    io.err(`${call.method} ${call.path.split('?')[0]} answered ${answer.status}${role}: ${why}${hint}\n`);
    return 1;
  }
  const body = isJson && answer.text ? (JSON.parse(answer.text) as Json) : null;
  if (answer.status === 202 && body?.approval) {
    io.out(options.json ? `${answer.text}\n` : pendingApprovalView(body));
    return 3;
  }
  // A change or an export that started a job: wait for it with a progress bar (and download an export), unless --no-wait.
  const started = body ? jobOfAnswer(call, body, options.wait === true) : null;
  // A preview or an audit verification too large for one answer (202 {job}): the job's result is the answer, shown as
  // the answer would have been.
  const previewJob = Boolean(body?.job && /_preview$|^audit_verify$/.test(String((body.job as JobAnswer).kind)));
  if (started && !options['no-wait']) {
    // Printed at the end: the answer with its job as it ended (or the job itself, for `job <id> --wait`).
    const print = (ended: string) => {
      const job = JSON.parse(ended) as JobAnswer;
      if (previewJob && job.result) return answerOut(call, answer, options, io, JSON.stringify(job.result));
      return answerOut(previewJob ? { ...call, view: undefined } : call, answer, options, io, body!.job ? JSON.stringify({ ...body, job }) : ended);
    };
    return followJob(client, started.jobId, options, io, print);
  }
  if (previewJob) answerOut({ ...call, view: undefined }, answer, options, io, options.json ? answer.text : JSON.stringify(body!.job));
  else answerOut(call, answer, options, io);
  if (started) io.err(`job ${started.jobId} ${started.state}; follow it with: holdback job ${started.jobId} --wait\n`);
  return body && call.exitOf ? call.exitOf(body) : 0;
}

function answerOut(call: Call, answer: { text: string; contentType: string }, options: Options, io: ApiCommandIo, text = answer.text): void {
  if (call.raw || !answer.contentType.startsWith('application/json') || options.json) io.out(text.endsWith('\n') || !text ? text : `${text}\n`);
  else {
    const parsed = JSON.parse(text) as Json;
    io.out(call.view ? call.view(parsed) : table(parsed));
  }
}

type JobAnswer = { jobId: string; state: string; kind: string; total: number; done: number; failed: number; error: string | null; result: { url: string; rows: number; bytes: number; sha256: string } | null };

/** The job an answer started (`job` of a change or an export), or the job of `job <id> --wait`. */
function jobOfAnswer(call: Call, body: Record<string, unknown>, wait: boolean): JobAnswer | null {
  const job = (body.job ?? null) as JobAnswer | null;
  if (job && typeof job.jobId === 'string') return job;
  if (wait && call.method === 'GET' && call.path.startsWith('/jobs/') && typeof body.jobId === 'string') return body as unknown as JobAnswer;
  return null;
}

const ENDED = ['succeeded', 'failed', 'cancelled'];

/**
 * Polls GET /jobs/{jobId} until the job ends, drawing its progress (done and failed of total) on stderr, then prints
 * the job and, for an export, downloads its file to --out (checked against its SHA-256). Exit 1 when the job failed.
 */
async function followJob(client: ApiClient, jobId: string, options: Options, io: ApiCommandIo, print: (text: string) => void): Promise<number> {
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar({ format: `job ${jobId} [{bar}] {value}/{total} {state}`, stream: process.stderr, hideCursor: true }, Presets.shades_classic);
  let job: JobAnswer | null = null;
  let text = '';
  bar.start(1, 0, { state: 'queued' });
  try {
    for (;;) {
      const answer = await client.call({ method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}` });
      if (answer.status >= 400) {
        io.err(`GET /jobs/${jobId} answered ${answer.status}: ${answer.text.slice(0, 300)}\n`);
        return 1;
      }
      text = answer.text;
      job = JSON.parse(text) as JobAnswer;
      bar.setTotal(Math.max(job.total, 1));
      bar.update(job.done + job.failed, { state: job.state });
      if (ENDED.includes(job.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    bar.stop();
  }
  print(text);
  if (job.state !== 'succeeded') {
    io.err(`job ${jobId} ${job.state}${job.error ? `: ${job.error}` : ''}\n`);
    return 1;
  }
  if (job.failed > 0) io.err(`job ${jobId}: ${job.failed} of ${job.total} failed; GET /jobs/${jobId} names each with its reason\n`);
  if (job.result && typeof job.result.url === 'string') return download(job, options, io);
  return 0;
}

/** Downloads an export's file to --out (default holdback-<kind>-<jobId>.<ext>), checking its size and SHA-256. */
async function download(job: JobAnswer, options: Options, io: ApiCommandIo): Promise<number> {
  const extension = /\.(csv|jsonl)(\?|$)/.exec(job.result!.url)?.[1] ?? (job.kind === 'audit_export' ? 'jsonl' : 'csv');
  const file = (options.out as string | undefined) ?? `holdback-${job.kind.replace('_export', '')}-${job.jobId}.${extension}`;
  const response = await fetch(job.result!.url);
  if (!response.ok || !response.body) {
    io.err(`the export's link answered ${response.status}: ${(await response.text()).slice(0, 300)}\n`);
    return 1;
  }
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const sha256 = hash.digest('hex');
  if (sha256 !== job.result!.sha256 || bytes !== job.result!.bytes) {
    io.err(`${file}: ${bytes} bytes with SHA-256 ${sha256}, not the ${job.result!.bytes} bytes and ${job.result!.sha256} the job wrote; download it again\n`);
    return 1;
  }
  io.err(`wrote ${job.result!.rows} rows (${bytes} bytes, SHA-256 ${sha256}) to ${file}\n`);
  return 0;
}
