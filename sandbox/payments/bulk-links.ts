/** Bulk payment-link upload (2.11): a CSV of sixteen columns, one link per row, answered row by row with line numbers. */
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { GatewayError, type SandboxContext, type SandboxRequest } from '../http';
import { IST } from '../time';
import { createLink, TPV_NOTE_KEYS } from './links';

const BULK_COLUMNS = [
  'Link Id', 'Expiry Time', 'Currency', 'Amount', 'Min Amount', 'Description', 'Customer Name', 'Customer Phone',
  'Customer Email', 'Note 1 Title', 'Note 1 Description', 'Note 2 Title', 'Note 2 Description', 'Note 3 Title',
  'Note 3 Description', 'Webhook URL',
] as const;
const MAX_ROWS = 1000;

/** Which column a refusal is about, from the API field the row was turned into. */
const COLUMN_OF_FIELD: Array<[string, string]> = [
  ['link_id', 'Link Id'], ['link_expiry_time', 'Expiry Time'], ['link_currency', 'Currency'], ['link_amount', 'Amount'],
  ['link_minimum_partial_amount', 'Min Amount'], ['link_purpose', 'Description'], ['customer_details.customer_name', 'Customer Name'],
  ['customer_details.customer_phone', 'Customer Phone'], ['customer_details.customer_email', 'Customer Email'],
  ['customer_details.customer_bank', 'Note (TPV bank field)'], ['link_notes', 'Note'], ['link_meta.notify_url', 'Webhook URL'],
];

export type RowResult =
  | { line: number; link_id: string; status: 'CREATED'; cf_link_id: number; link_url: string }
  | { line: number; link_id: string; status: 'REFUSED'; column: string | null; code: string; reason: string };

export interface BulkResult {
  rows: number;
  created: number;
  refused: number;
  results: RowResult[];
}

/** The CSV text of the request: a text/csv body, or the file part of a multipart/form-data upload. */
export function csvOfRequest(req: SandboxRequest): string {
  const type = req.header('content-type') ?? '';
  if (/multipart\/form-data/i.test(type)) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
    if (!boundary) throw new GatewayError(400, 'file_missing', 'request: multipart upload without a boundary. Send the CSV as a multipart file field named "file", or as a text/csv body');
    const delimiter = `--${boundary[1] ?? boundary[2]}`;
    // latin1 keeps every byte, so the file part can be decoded as UTF-8 afterwards.
    const parts = req.rawBody.toString('latin1').split(delimiter).slice(1, -1);
    for (const part of parts) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const headers = part.slice(0, split);
      if (!/filename=|name="file"/i.test(headers)) continue;
      return Buffer.from(part.slice(split + 4).replace(/\r\n$/, ''), 'latin1').toString('utf8');
    }
    throw new GatewayError(400, 'file_missing', 'request: no file in the multipart upload. Send the CSV in a file field named "file"');
  }
  if (!/text\/csv|text\/plain|application\/csv/i.test(type)) {
    throw new GatewayError(415, 'content_type_invalid', `Content-Type: must be text/csv or multipart/form-data with a CSV file. Value received: ${type || '(none)'}`);
  }
  return req.rawBody.toString('utf8');
}

/** Expiry Time: "YYYY-MM-DD" (end of that day), "DD-MM-YYYY", "DD/MM/YYYY", "YYYY-MM-DD HH:MM:SS" (India time) or ISO 8601 with offset. */
function expiryOfCell(cell: string): string | undefined {
  const text = cell.trim();
  if (text === '') return undefined;
  const forms: Array<[RegExp, string, boolean]> = [
    [/^\d{4}-\d{2}-\d{2}$/, 'yyyy-MM-dd', true],
    [/^\d{2}-\d{2}-\d{4}$/, 'dd-MM-yyyy', true],
    [/^\d{2}\/\d{2}\/\d{4}$/, 'dd/MM/yyyy', true],
    [/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'yyyy-MM-dd HH:mm:ss', false],
  ];
  for (const [shape, format, wholeDay] of forms) {
    if (!shape.test(text)) continue;
    const parsed = DateTime.fromFormat(text, format, { zone: IST });
    if (!parsed.isValid) return text;
    return (wholeDay ? parsed.endOf('day').set({ millisecond: 0 }) : parsed).toISO({ suppressMilliseconds: true }) as string;
  }
  return text; // ISO with offset, or something createLink refuses with a reason
}

function amountOfCell(cell: string): unknown {
  const text = cell.trim();
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : text === '' ? undefined : text;
}

/** One CSV row as the body of a create-link request; TPV note titles become the customer's bank fields. */
function linkRequestOfRow(cells: string[]): Record<string, unknown> {
  const [linkId, expiry, currency, amount, minAmount, description, name, phone, email, t1, d1, t2, d2, t3, d3, webhook] = cells.map((c) => c.trim());
  const customer: Record<string, unknown> = { customer_phone: phone || undefined, customer_name: name || undefined, customer_email: email || undefined };
  const notes: Record<string, string> = {};
  for (const [title, value] of [[t1, d1], [t2, d2], [t3, d3]]) {
    if (!title) continue;
    if ((TPV_NOTE_KEYS as readonly string[]).includes(title)) customer[title] = value || undefined;
    else notes[title] = value;
  }
  const partial = minAmount !== '';
  return {
    link_id: linkId,
    link_expiry_time: expiryOfCell(expiry),
    link_currency: currency,
    link_amount: amountOfCell(amount),
    link_purpose: description,
    customer_details: customer,
    link_partial_payments: partial,
    ...(partial ? { link_minimum_partial_amount: amountOfCell(minAmount) } : {}),
    link_notes: notes,
    link_meta: webhook ? { notify_url: webhook } : {},
  };
}

function columnOf(message: string): string | null {
  const field = message.split(':')[0];
  for (const [prefix, column] of COLUMN_OF_FIELD) if (field.startsWith(prefix)) return column;
  return null;
}

/** Parses the file, checks the header by name and order, and creates one link per row. */
export function uploadLinks(ctx: SandboxContext, csv: string): BulkResult {
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    rows = parse(csv, { bom: true, info: true, skip_empty_lines: true, relax_column_count: true }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GatewayError(400, 'file_invalid', `file: not a readable CSV (${reason}). Send the sixteen columns ${BULK_COLUMNS.join(', ')}`);
  }
  if (rows.length === 0) throw new GatewayError(400, 'file_invalid', `file: empty. The first row must be the header: ${BULK_COLUMNS.join(', ')}`);
  const header = rows[0].record.map((c) => c.trim());
  for (let i = 0; i < Math.max(header.length, BULK_COLUMNS.length); i++) {
    const expected = BULK_COLUMNS[i];
    const found = header[i];
    if (expected === undefined || found === undefined || found.toLowerCase() !== expected.toLowerCase()) {
      throw new GatewayError(400, 'file_header_invalid', `file: header column ${i + 1} must be ${expected ? `"${expected}"` : 'absent (sixteen columns only)'}; found ${found === undefined ? 'nothing' : `"${found.length > 60 ? `${found.slice(0, 60)}...` : found}"`}. The header is, in order: ${BULK_COLUMNS.join(', ')}`);
    }
  }
  const data = rows.slice(1);
  if (data.length === 0) throw new GatewayError(400, 'file_invalid', 'file: has a header but no link rows');
  if (data.length > MAX_ROWS) throw new GatewayError(400, 'file_invalid', `file: ${data.length} rows; at most ${MAX_ROWS} links per upload. Split the file`);
  const results = data.map(({ record, info }): RowResult => {
    // info.lines is where the record ends; quoted fields may span lines, so count back to where it starts.
    const line = info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
    const linkId = (record[0] ?? '').trim();
    if (record.length !== BULK_COLUMNS.length) {
      return { line, link_id: linkId, status: 'REFUSED', column: null, code: 'row_invalid', reason: `row has ${record.length} columns; the file has ${BULK_COLUMNS.length}` };
    }
    try {
      const link = createLink(ctx, linkRequestOfRow(record));
      return { line, link_id: link.link_id, status: 'CREATED', cf_link_id: link.cf_link_id, link_url: link.link_url };
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      return { line, link_id: linkId, status: 'REFUSED', column: columnOf(error.message), code: error.code, reason: error.message };
    }
  });
  const created = results.filter((r) => r.status === 'CREATED').length;
  return { rows: results.length, created, refused: results.length - created, results };
}
