/** The sandbox's saved state: made again only where requests reached it since the last save, yet always the whole state. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createState, resetState, settlementKey, type SandboxState, type VendorSettlementRecord } from '../../sandbox/state';
import { loadState, serializeState, stateFile, StateText } from '../../sandbox/persistence';
import { TrackedMap } from '../../sandbox/tracked-map';

const settlement = (orderId: string, vendorId: string): VendorSettlementRecord => ({
  order_id: orderId, vendor_id: vendorId, amount: '200.00', eligibility: '2022-12-02T16:00:00+05:30',
  scheduled_at: '2022-12-03T11:00:00+05:30', status: 'PENDING', settled_at: null, settlement_id: null, eligibility_updates: 0,
});

const logEntry = (orderId: string) => ({
  at: '2022-12-02T16:00:00+05:30', order_id: orderId, vendor_id: 'v1', requested: { eligibility_date: '2022-12-02' },
  http_status: 200, status: 'OK', subCode: '200', message: 'Vendor eligibility updated',
});

function filled(): SandboxState {
  const state = createState();
  for (let i = 0; i < 50; i += 1) {
    for (const vendorId of ['v1', 'v2']) state.settlements.set(settlementKey(`o${i}`, vendorId), settlement(`o${i}`, vendorId));
    state.sessions.set(`session_${i}`, `o${i}`);
    state.eligibilityLog.push(logEntry(`o${i}`));
  }
  return state;
}

test('each save made again only where the state was reached reads exactly as the whole state serialized afresh', () => {
  const state = filled();
  const text = new StateText();
  expect(text.of(state, true)).toBe(serializeState(state));
  const steps: Array<[string, () => void]> = [
    ['nothing changed', () => undefined],
    ['a record changed after a get', () => { state.settlements.get(settlementKey('o3', 'v1'))!.eligibility_updates += 1; }],
    ['a new entry and a log entry', () => { state.settlements.set(settlementKey('o99', 'v1'), settlement('o99', 'v1')); state.eligibilityLog.push(logEntry('o99')); }],
    ['an entry deleted and put back (it moves to the end)', () => { state.sessions.delete('session_4'); state.sessions.set('session_4', 'o4'); }],
    ['records changed while iterating', () => { for (const record of state.settlements.values()) record.status = 'SETTLED'; }],
    ['records changed through a spread', () => { for (const [, record] of [...state.settlements]) record.eligibility_updates += 2; }],
    ['a record replaced by set', () => { state.settlements.set(settlementKey('o7', 'v2'), { ...settlement('o7', 'v2'), amount: '1.00' }); }],
    ['a map cleared', () => { state.sessions.clear(); state.sessions.set('session_x', 'ox'); }],
    ['the log given a new array', () => { state.eligibilityLog = [logEntry('first')]; }],
    ['a log entry replaced in place', () => { state.eligibilityLog[0] = logEntry('replaced'); }],
    ['the whole state reset', () => { resetState(state); state.orders.get('none'); }],
  ];
  for (const [what, step] of steps) {
    step();
    expect({ what, text: text.of(state, false) }).toEqual({ what, text: serializeState(state) });
  }
});

test('a record changed through a reference its map did not hand out since the last save is saved by saveAll (the timers\' save)', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-sandbox-state-'));
  try {
    const state = filled();
    const file = stateFile(state, folder);
    await file.save();
    const held = state.settlements.get(settlementKey('o5', 'v2'))!;
    await file.save();
    held.status = 'SETTLED';
    await file.saveAll();
    const loaded = createState();
    expect(loadState(loaded, folder)).toBe(true);
    expect(loaded.settlements.get(settlementKey('o5', 'v2'))!.status).toBe('SETTLED');
    expect(serializeState(loaded)).toBe(serializeState(state));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('a loaded state keeps its maps tracked, so the next save after a request still writes what it changed', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-sandbox-state-'));
  try {
    await stateFile(filled(), folder).saveAll();
    const state = createState();
    loadState(state, folder);
    expect(state.settlements).toBeInstanceOf(TrackedMap);
    const file = stateFile(state, folder);
    await file.save();
    state.settlements.get(settlementKey('o1', 'v1'))!.eligibility_updates = 9;
    await file.save();
    const again = createState();
    loadState(again, folder);
    expect(again.settlements.get(settlementKey('o1', 'v1'))!.eligibility_updates).toBe(9);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
