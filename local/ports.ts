/** Ports the embedded default refuses: those fetch will not connect to, which would break webhooks and every fetch client. */

/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking), as Node's fetch applies them:
 * a fetch to any of them fails with "bad port" before connecting. The README's example, a marketplace backend's own
 * fetch calls and browsers would all fail against Holdback or the sandbox on one of them.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111,
  113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548,
  554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566,
  6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Throws, naming the variable, when `port` is one fetch refuses. */
export function refuseFetchBlockedPort(variable: string, port: number): void {
  if (!FETCH_BLOCKED_PORTS.has(port)) return;
  throw new Error(
    `${variable} is ${port}, a port fetch refuses to connect to ("bad port": browsers, Node's fetch and the gateway ` +
      `sandbox's webhook receivers would all fail against it): choose another port, e.g. ${port + 1 < 65536 && !FETCH_BLOCKED_PORTS.has(port + 1) ? port + 1 : 4000}`,
  );
}
