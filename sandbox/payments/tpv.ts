/** Bank account check (TPV, interface 1.4 and section 3): the test-payer registry and the paying-account comparison. */
import { fieldError } from '../http';
import { IFSC_PATTERN } from '../orders';
import type { OrderRecord, SandboxState, TestPayerRecord } from '../state';

/** Who pays from which account: a UPI id (optional) and the bank account behind it. */
export interface TestPayer {
  upi_id: string | null;
  bank_account_number: string;
  ifsc: string;
  bank_code: number | null;
}

export interface BankAccount {
  bank_account_number: string;
  ifsc: string;
  bank_code: number | null;
}

function asPayer(record: TestPayerRecord): TestPayer {
  return record as unknown as TestPayer;
}

/** Every registered payer once, in registration order. */
export function listTestPayers(state: SandboxState): TestPayer[] {
  const seen = new Set<TestPayerRecord>([...state.testPayers.byBankAccount.values(), ...state.testPayers.byUpiId.values()]);
  return [...seen].map(asPayer);
}

/** Parses a PUT body (an array, or {payers: [...]}) into payers; errors name the entry and field. */
export function parseTestPayers(body: unknown): TestPayer[] {
  const list = Array.isArray(body) ? body : body !== null && typeof body === 'object' && Array.isArray((body as { payers?: unknown }).payers) ? (body as { payers: unknown[] }).payers : null;
  if (list === null) throw fieldError('payers', 'invalid', 'send a JSON array of {upi_id?, bank_account_number, ifsc, bank_code?} (or {"payers": [...]})', body);
  const upiIds = new Set<string>();
  return list.map((entry, i) => {
    const at = `payers[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw fieldError(at, 'invalid', 'must be an object {upi_id?, bank_account_number, ifsc, bank_code?}', entry);
    const e = entry as Record<string, unknown>;
    const account = e.bank_account_number;
    if (typeof account !== 'string' || !/^[A-Za-z0-9]{6,40}$/.test(account)) throw fieldError(`${at}.bank_account_number`, 'invalid', 'must be 6 to 40 letters or digits', account ?? '');
    const ifsc = typeof e.ifsc === 'string' ? e.ifsc.toUpperCase() : e.ifsc;
    if (typeof ifsc !== 'string' || !IFSC_PATTERN.test(ifsc)) throw fieldError(`${at}.ifsc`, 'invalid', 'must be an IFSC: four letters, a zero, then six letters or digits (e.g. "SBIN0001234")', e.ifsc ?? '');
    let upiId: string | null = null;
    if (e.upi_id !== undefined && e.upi_id !== null) {
      if (typeof e.upi_id !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(e.upi_id)) throw fieldError(`${at}.upi_id`, 'invalid', 'must be a UPI id such as "name@bank"', e.upi_id);
      if (upiIds.has(e.upi_id)) throw fieldError(`${at}.upi_id`, 'duplicate', 'appears twice; a UPI id pays from one account', e.upi_id);
      upiIds.add(e.upi_id);
      upiId = e.upi_id;
    }
    let bankCode: number | null = null;
    if (e.bank_code !== undefined && e.bank_code !== null) {
      const code = typeof e.bank_code === 'string' && /^\d+$/.test(e.bank_code) ? Number(e.bank_code) : e.bank_code;
      if (typeof code !== 'number' || !Number.isInteger(code) || code <= 0) throw fieldError(`${at}.bank_code`, 'invalid', 'must be a positive integer bank code', e.bank_code);
      bankCode = code;
    }
    return { upi_id: upiId, bank_account_number: account, ifsc, bank_code: bankCode };
  });
}

/** Replaces the registry. */
export function replaceTestPayers(state: SandboxState, payers: TestPayer[]): void {
  state.testPayers.byUpiId.clear();
  state.testPayers.byBankAccount.clear();
  for (const payer of payers) {
    const record = payer as unknown as TestPayerRecord;
    if (payer.upi_id) state.testPayers.byUpiId.set(payer.upi_id, record);
    if (!state.testPayers.byBankAccount.has(payer.bank_account_number)) state.testPayers.byBankAccount.set(payer.bank_account_number, record);
  }
}

/** The account given at order creation (customer_details), or null when the order has none. */
function orderAccount(order: OrderRecord): BankAccount | null {
  const c = order.customer;
  if (!c.customer_bank_account_number || !c.customer_bank_ifsc) return null;
  return { bank_account_number: c.customer_bank_account_number, ifsc: c.customer_bank_ifsc.toUpperCase(), bank_code: c.customer_bank_code };
}

/**
 * The account a UPI collect request debits: the registered payer of that UPI id; an unregistered UPI id stands for
 * the customer's own account (register a payer to simulate paying from another one).
 */
export function accountOfUpiId(state: SandboxState, upiId: string, order: OrderRecord): BankAccount | null {
  const payer = state.testPayers.byUpiId.get(upiId);
  return payer ? asPayer(payer) : orderAccount(order);
}

/**
 * The account chosen on the bank/UPI-app page: the payer named by `chosenAccount` (must be registered), else the
 * registry's first payer (of that bank, for net banking), else the customer's own account.
 */
export function chosenPayingAccount(state: SandboxState, order: OrderRecord, chosenAccount: string | null, bankCode: number | null): BankAccount | null {
  if (chosenAccount) {
    const payer = state.testPayers.byBankAccount.get(chosenAccount);
    if (!payer) throw fieldError('payer_account_number', 'invalid', 'is not a registered test payer. Register it with PUT /_sandbox/test-payers or leave the field empty', chosenAccount);
    return asPayer(payer);
  }
  const registered = listTestPayers(state).filter((p) => bankCode === null || p.bank_code === bankCode);
  if (registered.length > 0) return registered[0];
  return orderAccount(order);
}

function masked(account: string): string {
  return `${'X'.repeat(Math.max(0, account.length - 4))}${account.slice(-4)}`;
}

/** Why the paying account fails the check, or null when it is the customer's account (section 3, section 7). */
export function tpvMismatch(order: OrderRecord, paying: BankAccount | null, bankCode: number | null): string | null {
  const expected = orderAccount(order);
  if (!expected) return 'the order carries no customer bank account (customer_bank_account_number and customer_bank_ifsc)';
  if (!paying) return 'the paying bank account is unknown';
  if (bankCode !== null && order.customer.customer_bank_code !== null && bankCode !== order.customer.customer_bank_code) {
    return `net banking bank ${bankCode} differs from the customer's bank ${order.customer.customer_bank_code} given at order creation`;
  }
  if (paying.bank_account_number !== expected.bank_account_number || paying.ifsc.toUpperCase() !== expected.ifsc) {
    return `paid from bank account ${masked(paying.bank_account_number)} (${paying.ifsc}), which differs from the account ${masked(expected.bank_account_number)} (${expected.ifsc}) given at order creation`;
  }
  return null;
}
