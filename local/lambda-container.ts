/**
 * One local Lambda container on a worker thread: its own composition root and SDK clients, talking to the edge over
 * HTTP as on AWS, invoked by the runtime for the bus's and the scheduler's targets.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DateTime } from 'luxon';
import type { Context } from 'aws-lambda';
import { buildDependencies } from '../functions/composition-root';
import type { HandlerName } from '../functions/routing';
import type { Dependencies, EventPublisher, Logger } from '../functions/application/ports';
import { makeOrderEventsHandler } from '../functions/handlers/order-events';
import { makeReleaseHandler } from '../functions/handlers/release';
import { makeSweepHandler } from '../functions/handlers/sweep';
import { sharedClockReader } from './clock';
import { lambdaContext } from './lambda-context';
import type { ContainerData, FromContainer, ToContainer } from './lambda-messages';
import { LOCAL_FUNCTION_NAMES } from './scheduler';

const port = parentPort;
if (!port) throw new Error('lambda-container runs on a worker thread started by the local runtime');
const data = workerData as ContainerData;
const post = (message: FromContainer): void => port.postMessage(message);

const nowMs = sharedClockReader(data.clock);

const logger: Logger = data.log
  ? {
    info: (message, fields) => post({ kind: 'log', level: 'info', message, fields }),
    warn: (message, fields) => post({ kind: 'log', level: 'warn', message, fields }),
    error: (message, fields) => post({ kind: 'log', level: 'error', message, fields }),
  }
  : { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Events go out through the runtime's own publisher (the production EventBridge adapter on the runtime's thread, over
 * HTTP to the edge): one publisher sees every event, so concurrent releases of all containers share PutEvents calls,
 * and `runtime.deps.publisher` observes what Holdback emits.
 */
const waitingForPublish = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
let nextPublishId = 0;
function relay(method: 'publish' | 'publishOrderEvent', args: unknown[]): Promise<void> {
  const id = nextPublishId++;
  return new Promise((resolve, reject) => {
    waitingForPublish.set(id, { resolve, reject });
    post({ kind: 'publish', id, method, args });
  });
}
const publisher: EventPublisher = {
  publish: (events) => relay('publish', [events]),
  publishOrderEvent: (detailType, detail) => relay('publishOrderEvent', [detailType, detail]),
};

const deps: Dependencies = {
  ...buildDependencies(data.config, { clock: { now: () => DateTime.fromMillis(nowMs(), { zone: 'utc' }) }, logger }),
  publisher,
};
const handlers: Record<HandlerName, (event: never, context: Context) => Promise<unknown>> = {
  orderEvents: makeOrderEventsHandler(() => deps),
  release: makeReleaseHandler(() => deps),
  sweep: makeSweepHandler(() => deps),
};

async function invoke(id: number, name: HandlerName, event: unknown): Promise<void> {
  try {
    const value = await handlers[name](event as never, lambdaContext(LOCAL_FUNCTION_NAMES[name]));
    post({ kind: 'result', id, value });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    post({ kind: 'failed', id, message: failure.message, stack: failure.stack });
  }
}

port.on('message', (message: ToContainer) => {
  if (message.kind === 'invoke') {
    void invoke(message.id, message.name, message.event);
    return;
  }
  const waiting = waitingForPublish.get(message.id);
  waitingForPublish.delete(message.id);
  if (!waiting) return;
  if (message.error === undefined) waiting.resolve();
  else waiting.reject(new Error(message.error));
});
post({ kind: 'ready' });
