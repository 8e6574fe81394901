/** The gateway attempts a release keeps: which of them left open whether the gateway applied the date they sent. */
import type { Attempt, GatewayAnswer, VendorRelease } from '../types';

/** Attempts kept on the release (the audit log keeps every one): a release retried for days stays a small item. */
export const ATTEMPTS_KEPT = 20;
/** Status of an attempt recorded before its PUT left, until its answer is recorded. */
export const SENT_STATUS = 'SENT';
/** Status of an attempt whose sender was lost before it recorded the answer. */
export const NO_ANSWER_STATUS = 'NO_ANSWER';

/**
 * Whether an attempt's answer leaves open whether the gateway applied it: none came (not yet, a timeout, a reset, a
 * lost sender) or a 5xx (the gateway may have applied the PUT before failing). A 429 or a 4xx is a clean answer.
 */
export function outcomeUnknown(attempt: Attempt): boolean {
  if (attempt.confirmedFromRecon) return false;
  return attempt.status === SENT_STATUS || attempt.status === NO_ANSWER_STATUS || attempt.status === 'TIMEOUT'
    || attempt.status === 'NETWORK' || (attempt.httpStatus !== null && attempt.httpStatus >= 500);
}

/** Whether an answer leaves open whether the PUT was applied (see outcomeUnknown): the recon is read before sending again. */
export function answerUnknown(final: GatewayAnswer): boolean {
  return final.kind === 'timeout' || final.kind === 'network' || (final.kind === 'response' && final.httpStatus >= 500);
}

/**
 * The dates this release sent whose outcome is unknown, plus the one a lost claim was sending: if the gateway's order
 * recon holds one of them, that send arrived, and nothing may be sent again.
 */
export function unresolvedRequests(release: VendorRelease): string[] {
  const requests = new Set(release.attempts.filter(outcomeUnknown).map((a) => a.request));
  if (release.state === 'APPLYING' && release.sending) requests.add(release.sending.request);
  return [...requests];
}

/** The release's attempts with this send's SENT ones (the last `answered.length`) replaced by their answers. */
export function withAnswers(attempts: Attempt[], answered: Attempt[]): Attempt[] {
  const kept = [...attempts];
  let open = answered.length;
  for (let i = kept.length - 1; i >= 0 && open > 0; i--) {
    if (kept[i].status === SENT_STATUS) {
      kept.splice(i, 1);
      open -= 1;
    }
  }
  return [...kept, ...answered].slice(-ATTEMPTS_KEPT);
}
