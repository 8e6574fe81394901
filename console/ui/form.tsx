/** Form parts every page uses: labelled fields with the API's error beside the field it names, and the form's own note. */
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiProblem, problemOf, type Issue } from './api';

const ACTOR_KEY = 'holdback.actor';

/** Who is making changes: asked once at the top of the page, kept in this browser, sent as `actor` with every change. */
export function storedActor(): string {
  try {
    return localStorage.getItem(ACTOR_KEY) ?? '';
  } catch {
    return '';
  }
}

export function storeActor(actor: string): void {
  try {
    localStorage.setItem(ACTOR_KEY, actor);
  } catch {
    // A browser without storage asks again on the next load.
  }
}

/** Who the API takes the caller to be (GET /whoami): signed on AWS, unauthenticated locally. */
export interface Caller {
  principal: string;
  name: string | null;
  authenticated: boolean;
}

let signedCaller: Caller | null = null;

/** Set once the header read GET /whoami: a signed caller's actor is the principal's name, filled in by the API. */
export function rememberCaller(caller: Caller): void {
  signedCaller = caller.authenticated ? caller : null;
}

/**
 * The actor, or a problem that says where to enter it (every change records who made it). Signed (AWS), none is
 * sent: the API records the principal's own name, and would refuse one naming someone else.
 */
export function requireActor(): string | undefined {
  if (signedCaller) return undefined;
  const actor = storedActor().trim();
  if (!actor) throw new ApiProblem(400, 'actor_missing', 'Enter your name or email in "You (recorded as actor)" at the top of the page first.', [{ field: 'actor', problem: 'is empty', expected: 'your name or email' }], false);
  return actor;
}

/** Whether an issue's field names this control ("delay" matches "release.delay" and "rows[3].delay"). */
function names(issue: Issue, field: string): boolean {
  const f = issue.field ?? '';
  return f === field || f.endsWith(`.${field}`) || f.startsWith(`${field}.`) || f.startsWith(`${field}[`);
}

function issueText(issue: Issue): string {
  if (issue.problem || issue.expected) return `${issue.field} ${issue.problem ?? 'is wrong'}${issue.expected ? `; send ${issue.expected}` : ''}`;
  return issue.message ?? issue.field;
}

/** A form's submission state: busy while a call runs, then the problem it ended with, if any. */
/**
 * Asks before a change that moves money (a release, a hold, a policy or settings change), saying exactly what will be
 * sent; refused or closed, nothing is sent (the answer is false).
 */
export function confirmSend(summary: string, method: string, path: string, body: unknown): boolean {
  return window.confirm(`${summary}\n\nHoldback will be sent exactly:\n${method} ${path}\n${JSON.stringify(body, null, 2)}\n\nSend it?`);
}

/** What a change refused at its confirmation says (nothing was sent). */
export const NOT_CONFIRMED = 'Not sent: the change was not confirmed.';

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const run = async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setProblem(null);
    try {
      return await work();
    } catch (error) {
      setProblem(problemOf(error));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run, clear: () => setProblem(null) };
}

/** The issues of a problem that name this field, shown right under its control. */
function FieldIssues({ id, field, problem }: { id: string; field: string; problem: ApiProblem | null }) {
  const mine = problem?.issues.filter((i) => names(i, field)) ?? [];
  if (mine.length === 0) return null;
  return (
    <span id={id} class="field-error" role="alert" data-field-error={field}>
      {mine.map(issueText).join('; ')}
    </span>
  );
}

let nextId = 0;
function useFieldId(name: string): string {
  const [id] = useState(() => `f-${name}-${(nextId += 1)}`);
  return id;
}

interface FieldProps {
  label: string;
  /** The API's field name: its issues are shown under this control. */
  field: string;
  problem: ApiProblem | null;
  value: string;
  onValue: (value: string) => void;
  type?: string;
  placeholder?: string;
  hint?: string;
  required?: boolean;
  testId?: string;
}

export function TextField({ label, field, problem, value, onValue, type = 'text', placeholder, hint, required, testId }: FieldProps) {
  const id = useFieldId(field);
  const invalid = problem?.issues.some((i) => names(i, field)) ?? false;
  // Only the notes that are there: the hint always when given, the error while there is one.
  const describedBy = [invalid ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={field}
        type={type}
        value={value}
        placeholder={placeholder}
        required={required}
        aria-invalid={invalid}
        aria-describedby={describedBy}
        data-testid={testId}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
      />
      {hint ? <span id={`${id}-hint`} class="hint">{hint}</span> : null}
      <FieldIssues id={`${id}-error`} field={field} problem={problem} />
    </div>
  );
}

export function SelectField({ label, field, problem, value, onValue, options, testId }: Omit<FieldProps, 'type' | 'placeholder'> & { options: Array<[string, string]> }) {
  const id = useFieldId(field);
  const invalid = problem?.issues.some((i) => names(i, field)) ?? false;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={field} value={value} aria-invalid={invalid} aria-describedby={invalid ? `${id}-error` : undefined} data-testid={testId} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
        {options.map(([v, text]) => <option value={v} key={v}>{text}</option>)}
      </select>
      <FieldIssues id={`${id}-error`} field={field} problem={problem} />
    </div>
  );
}

/** Every change asks why; the API records it with the actor. */
export function ReasonField({ problem, value, onValue, testId }: { problem: ApiProblem | null; value: string; onValue: (v: string) => void; testId?: string }) {
  return <TextField label="Reason (recorded with the change)" field="reason" problem={problem} value={value} onValue={onValue} required testId={testId} />;
}

/**
 * What the form's fields do not show: the message, issues naming no control here, and a refusal by the AWS role.
 * It sits next to the form's button, so the reader sees why the click did nothing.
 */
export function ProblemNote({ problem, shownFields = [], testId, lead = 'Not done' }: { problem: ApiProblem | null; shownFields?: string[]; testId?: string; lead?: string }) {
  if (!problem) return null;
  const others = problem.issues.filter((i) => !shownFields.some((f) => names(i, f)));
  return (
    <div class={problem.refusedByRole ? 'problem refused' : 'problem'} role="alert" data-testid={testId ?? 'problem'} data-code={problem.code}>
      <strong>{problem.refusedByRole ? 'Refused by your AWS role. ' : problem.status ? `${lead} (${problem.status} ${problem.code}). ` : `${lead}. `}</strong>
      {problem.refusedByRole ? problem.message.replace(/^Refused by your AWS role: /, '') : problem.message}
      {others.length > 0 ? <ul>{others.map((i, n) => <li key={n}>{issueText(i)}</li>)}</ul> : null}
    </div>
  );
}

export function Section({ title, children, testId }: { title: string; children: ComponentChildren; testId?: string }) {
  return (
    <section aria-label={title} data-testid={testId}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export interface TableRow {
  key: string;
  cells: ComponentChildren[];
  testId?: string;
}

interface TableProps {
  caption: string;
  headers: string[];
  rows: TableRow[];
  testId?: string;
  empty?: string;
}

/** A table with a caption and column headers; rows are given as cells. */
export function Table({ caption, headers, rows, testId, empty = 'Nothing to show.' }: TableProps) {
  if (rows.length === 0) return <p class="empty" data-testid={testId}>{caption}: {empty}</p>;
  return (
    <div class="table-wrap">
    <table data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>{headers.map((h) => <th scope="col" key={h}>{h}</th>)}</tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key} data-testid={row.testId}>
            {row.cells.map((cell, i) => (i === 0 ? <th scope="row" key={i}>{cell}</th> : <td key={i}>{cell}</td>))}
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

/** A part of a page that loads by itself: a route that fails shows its own error here, not a blank page. */
export function Loaded<T>({ state, children }: { state: { data?: T; problem?: ApiProblem | null; loading: boolean }; children: (data: T) => JSX.Element | null }) {
  if (state.problem) return <ProblemNote problem={state.problem} lead="Could not load" testId="load-problem" />;
  // A reload keeps what is shown (and the forms inside it, with what the user typed) until the new answer is in.
  if (state.data === undefined) return <p aria-busy="true">Loading…</p>;
  return children(state.data);
}

/** A titled section holding one table of what a route answered (its problem instead, when it refused). */
export function LoadedTable<T>({ title, sectionTestId, state, rows, ...table }: Omit<TableProps, 'rows'> & {
  title: string;
  sectionTestId?: string;
  state: { data?: T; problem?: ApiProblem | null; loading: boolean };
  rows: (data: T) => TableRow[];
}) {
  return (
    <Section title={title} testId={sectionTestId}>
      <Loaded state={state}>{(data) => <Table {...table} rows={rows(data)} />}</Loaded>
    </Section>
  );
}
