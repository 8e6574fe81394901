/**
 * What a sender without an SDK client shows of itself to a hook written for SDK clients: a `middlewareStack` whose
 * `add` takes an initialize-step middleware, run around each call with the operation's command name, as an SDK
 * client's stack runs it. The bench's call meter (bench/aws-call-meter.ts, the composition's client hook) counts the
 * events, schedules and messages of the client-less EventBridge, Scheduler and SQS senders through it as it counted
 * their clients' calls. Production adds nothing, and a call then goes straight out.
 */
type Handler = (args: { input: object }) => Promise<{ output: unknown }>;
type Middleware = (next: Handler, context: { commandName: string }) => Handler;

export class CallStack {
  private readonly middlewares: Middleware[] = [];

  add(middleware: Middleware, _options?: { step?: string; name?: string; override?: boolean }): void {
    this.middlewares.push(middleware);
  }

  /** `send(input)` through every middleware added, the first added outermost. */
  async call<I extends object, O>(operation: string, input: I, send: (input: I) => Promise<O>): Promise<O> {
    if (this.middlewares.length === 0) return send(input);
    let handler: Handler = async (args) => ({ output: await send(args.input as I) });
    for (let i = this.middlewares.length - 1; i >= 0; i -= 1) handler = this.middlewares[i](handler, { commandName: `${operation}Command` });
    return (await handler({ input })).output as O;
  }
}
