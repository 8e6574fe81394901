/** How the console talks to Holdback's API: same origin only, JSON in and out, errors kept with the fields they name. */

/** One entry of `error.issues` (the API's ValidationError): the field, what was wrong, what to send. */
export interface Issue {
  field: string;
  problem?: string;
  expected?: string;
  message?: string;
}

/** An answer other than 2xx, as the page shows it. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Issue[],
    /** AWS refused the signed call (403 from API Gateway's IAM authorisation, not from Holdback). */
    readonly refusedByRole: boolean,
  ) {
    super(message);
  }
}

/** Any failure as the page shows it: an answer's own problem as it is, anything else (a bug, a thrown string) by its message. */
export function problemOf(error: unknown): ApiProblem {
  return error instanceof ApiProblem ? error : new ApiProblem(0, 'error', error instanceof Error ? error.message : String(error), [], false);
}

/**
 * The API's root as seen from the page: the page lives at `<root>/console`, so under an API Gateway stage prefix
 * (`/prod/console`) the calls go to `/prod/...`, and behind `holdback console` to the loopback server that signs them.
 */
function apiRoot(): string {
  return location.pathname.replace(/\/console\/?$/, '');
}

/** A path with the query's non-empty values, encoded. */
export function withQuery(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
  const text = params.toString();
  return `${path}${text ? `?${text}` : ''}`;
}

/** An address for a link (CSV and audit downloads): the same origin, so the loopback server signs it too. */
export function apiHref(path: string, query: Record<string, string | undefined> = {}): string {
  return apiRoot() + withQuery(path, query);
}

/** Path segments built from ids are always encoded. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}

export async function call<T = any>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiRoot() + path, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': contentType },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new ApiProblem(0, 'unreachable', `Holdback's API did not answer (${error instanceof Error ? error.message : 'network error'}); is it running?`, [], false);
  }
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  // Four eyes (contract 6.4): nothing changed; the change waits for a second person. Said as the form's note.
  if (response.status === 202 && parsed?.approval?.approvalId) {
    const approval = parsed.approval;
    throw new ApiProblem(202, 'approval_pending', `Nothing changed yet: this change needs a second person. It waits as approval ${approval.approvalId} on the Approvals page until ${approval.expiresAt} (24 hours); another person approves or rejects it there.`, [], false);
  }
  if (response.ok) return parsed as T;
  const error = parsed && typeof parsed === 'object' ? parsed.error : undefined;
  if (response.status === 403 && (response.headers.get('x-holdback-refused-by') === 'aws-iam' || !error?.code)) {
    const awsMessage = parsed?.Message ?? parsed?.message ?? text.slice(0, 300);
    throw new ApiProblem(403, 'refused_by_role', `Refused by your AWS role: ${awsMessage || 'the role may not call this route'}`, [], true);
  }
  if (error && typeof error === 'object') {
    const issues: Issue[] = Array.isArray(error.issues) ? error.issues : [];
    throw new ApiProblem(response.status, String(error.code ?? 'error'), String(error.message ?? `HTTP ${response.status}`), issues, false);
  }
  throw new ApiProblem(response.status, 'http_error', `HTTP ${response.status}: ${text.slice(0, 300) || response.statusText}`, [], false);
}

/** The list of an answer: `items` (outcomes, vendors, a timeline) or `versions` (settings and policy histories). */
export function listOf<T = any>(body: any, key: 'items' | 'versions' = 'items'): T[] {
  return body && Array.isArray(body[key]) ? (body[key] as T[]) : [];
}

/** Rows a page of a listing holds at most (the API's largest `limit`), and how many pages `everyItem` reads. */
const PAGE_ROWS = 1000;
const MOST_PAGES = 100;

/**
 * Every item of a listing (`/outcomes`, `/vendors`), page after page, so that nothing hides on page two. A listing
 * longer than MOST_PAGES pages is a problem that says so, not a list silently cut short.
 */
export async function everyItem<T = any>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MOST_PAGES; page++) {
    const answer = await call<{ nextCursor?: string | null }>('GET', withQuery(path, { ...query, limit: String(PAGE_ROWS), cursor }));
    items.push(...listOf<T>(answer));
    if (!answer?.nextCursor) return items;
    cursor = answer.nextCursor;
  }
  throw new ApiProblem(0, 'too_many_rows', `${path} lists more than ${MOST_PAGES * PAGE_ROWS} rows here; narrow them on the Outcomes page`, [], false);
}
