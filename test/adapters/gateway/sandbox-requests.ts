/** Requests to the gateway sandbox as a merchant sends them (its credentials and API version), for the adapter tests' setup. */

/** A caller of the sandbox at `url()` (read at each call: the sandbox starts in a hook) that answers the status alone. */
export function sandboxStatusCaller(url: () => string, clientId: string, clientSecret: string) {
  return async (method: string, path: string, body: unknown): Promise<number> => {
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  };
}
