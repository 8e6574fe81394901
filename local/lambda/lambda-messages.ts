/** The messages between the local runtime and its Lambda containers (worker threads). */
import type { MessagePort } from 'node:worker_threads';
import type { HandlerName } from '../../functions/definitions/routing';
import type { RuntimeConfig } from '../../functions/composition-root';

/** What a container is started with. */
export interface ContainerData {
  config: RuntimeConfig;
  /** The shared clock's state (SharedClock.shared); the clock's timers stay on the runtime's thread. */
  clock: SharedArrayBuffer;
  /** Whether the runtime wants the handlers' structured log. */
  log: boolean;
  /**
   * Deployed bundles (esbuild output from the cloud assembly) to run instead of the TypeScript handlers: each is
   * `require`d and its exported `handler` called, with `environment` as its process.env (as Lambda sets it).
   */
  bundles?: Partial<Record<HandlerName, string>>;
  environment?: Record<string, string>;
  /** The module of the runtime's client hook (LocalRuntimeOptions.clientHook), loaded by the container itself. */
  clientHook?: string;
  /** A port to dynalite's thread that the container's DynamoDB clients send over (see dynamo-channel.ts); none: HTTP. */
  dynamodbChannel?: MessagePort;
  /** A port to the local edge that the container's Scheduler, EventBridge and SQS senders send over (see edge-channel.ts); none: HTTP. */
  edgeChannel?: MessagePort;
}

export type ToContainer =
  /** `environment`: the execution environment that runs it (an SQS mapping's concurrency slot), each with its own deps. */
  | { kind: 'invoke'; id: number; name: HandlerName; event: unknown; environment?: number }
  | { kind: 'published'; id: number; error?: string };

export type FromContainer =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'failed'; id: number; message: string; stack?: string }
  | { kind: 'publish'; id: number; method: 'publish' | 'publishOrderEvent'; args: unknown[] }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> };
