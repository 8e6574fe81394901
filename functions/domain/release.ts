/** Moved to release-machine.ts, the one module of the release state machine; kept for callers not moved yet. */
export { planRelease, prepareSend, vendorFacts, type PlanInput, type VendorFacts } from './release-machine';
