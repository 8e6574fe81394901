/**
 * The release state machine of one vendor's share of one order (contract sections 4 to 6): every transition a pure
 * function that returns the release to write (with the version it must replace) and the effects to run after the
 * write, each move checked against the one TRANSITIONS table (states.ts). The use cases only read, write
 * conditionally and run the effects.
 */
export * from './states';
export * from './attempts';
export * from './plan';
export * from './send';
export * from './recon';
export * from './settle';
