/** Use case: when a vendor on a schedule option settles for a given eligibility (POST /predictions). */
import type { parseEligibilityInput } from '../../domain/dates';
import { predictSettlement } from '../../domain/schedule-options';
import { calendarOf } from '../../domain/settings';
import type { Dependencies } from '../ports';

/** The body as the route's schema read it (handlers/routes/basics.ts): the eligibility, and the option if one was sent. */
export interface PredictionInput {
  eligibility: ReturnType<typeof parseEligibilityInput>;
  scheduleOption?: number;
}

/** `scheduleOption` defaults to the settings' default option; the answer is in the settings' timezone. */
export async function predictSettlementAt(deps: Dependencies, input: PredictionInput): Promise<{ settlementAt: string }> {
  const settings = await deps.settings.get();
  const settlement = predictSettlement(input.eligibility, input.scheduleOption ?? settings.defaultScheduleOption, calendarOf(settings));
  return { settlementAt: settlement.in(settings.timezone).toISO() };
}
