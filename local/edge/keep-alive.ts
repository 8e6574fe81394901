/**
 * How long the local edge's servers keep an idle kept-alive connection open. Node's default (5 s) is shorter than the
 * SDK's agents keep idle sockets (until closed), so a call that reuses a socket the server closed a moment before fails
 * with ECONNRESET: under load, a gap of 5 s between two calls of one client is common (a test's steps, a quiet day of
 * the embedded default). Ten minutes makes that race one the machine practically never meets; a stop still closes the
 * idle connections at once (server.close closes idle ones on Node 19 and later).
 */
export const LOCAL_KEEP_ALIVE_MS = 600_000;
