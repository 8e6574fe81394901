/** The messages between the local runtime and its Lambda containers (worker threads). */
import type { HandlerName } from '../functions/routing';
import type { RuntimeConfig } from '../functions/composition-root';

/** What a container is started with. */
export interface ContainerData {
  config: RuntimeConfig;
  /** The shared clock's state (SharedClock.shared); the clock's timers stay on the runtime's thread. */
  clock: SharedArrayBuffer;
  /** Whether the runtime wants the handlers' structured log. */
  log: boolean;
}

export type ToContainer =
  | { kind: 'invoke'; id: number; name: HandlerName; event: unknown }
  | { kind: 'published'; id: number; error?: string };

export type FromContainer =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'failed'; id: number; message: string; stack?: string }
  | { kind: 'publish'; id: number; method: 'publish' | 'publishOrderEvent'; args: unknown[] }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> };
