/** Use case: the malformed events Holdback refused and why (GET /rejected-events), newest first. */
import { ValidationError } from '../domain/errors';
import type { RejectedEvent } from '../domain/types';
import type { Dependencies } from './ports';
import { inZone } from './response-times';

const MAX_REJECTED_LIMIT = 500;

export async function listRejectedEvents(deps: Dependencies, limitText?: string | null): Promise<RejectedEvent[]> {
  const limit = limitText === undefined || limitText === null || limitText === '' ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_REJECTED_LIMIT) {
    throw new ValidationError([{ field: 'limit', problem: `is ${JSON.stringify(limitText)}`, expected: `a whole number from 1 to ${MAX_REJECTED_LIMIT}` }]);
  }
  const [rejected, settings] = await Promise.all([deps.rejected.list(limit), deps.settings.get()]);
  return rejected.map((r) => ({ ...r, at: inZone(r.at, settings.timezone) }));
}
