/** Use case: when a vendor on a schedule option settles for a given eligibility (POST /predictions). */
import { instantBoundsIssue } from '../../domain/bounds';
import { parseEligibilityInput } from '../../domain/dates';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { SCHEDULE_OPTIONS, isScheduleOption, predictSettlement } from '../../domain/schedule-options';
import { calendarOf } from '../../domain/settings';
import type { Dependencies } from '../ports';

const KEYS = ['eligibility', 'scheduleOption'];

/** `scheduleOption` defaults to the settings' default option; the answer is in the settings' timezone. */
export async function predictSettlementAt(deps: Dependencies, body: unknown): Promise<{ settlementAt: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: '{"eligibility": "2022-12-06 09:00:00", "scheduleOption": 1}' }]);
  }
  const input = body as Record<string, unknown>;
  const settings = await deps.settings.get();
  const issues: ValidationIssue[] = Object.keys(input).filter((k) => !KEYS.includes(k))
    .map((k) => ({ field: k, problem: 'is not a known field', expected: `only ${KEYS.join(', ')}` }));
  let eligibility = null;
  try {
    eligibility = parseEligibilityInput(input.eligibility, 'eligibility');
    const outOfBounds = instantBoundsIssue(eligibility, 'eligibility', null);
    if (outOfBounds) throw new ValidationError([outOfBounds]);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues);
  }
  const scheduleOption = input.scheduleOption ?? settings.defaultScheduleOption;
  if (!isScheduleOption(scheduleOption)) {
    issues.push({
      field: 'scheduleOption',
      problem: `is ${JSON.stringify(scheduleOption)}, not a schedule option of the gateway`,
      expected: `one of ${SCHEDULE_OPTIONS.map((o) => o.id).join(', ')}`,
    });
  }
  if (issues.length || !eligibility) throw new ValidationError(issues);
  const settlement = predictSettlement(eligibility, scheduleOption as number, calendarOf(settings));
  return { settlementAt: settlement.in(settings.timezone).toISO() };
}
