/** Ids that arrive in paths and bodies, checked against the gateway's id rule before they reach a key or a URL (the one check is the domain's). */
export { requireId } from '../domain/order-events';
