/** The embedded default started in process for the data-folder tests, on temporary folders, all let go after each test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocal, type LocalRuntime, type LocalRuntimeOptions } from '../../local/runtime';

/**
 * Registers the afterEach of a file: `first` (e.g. killing child processes), then every runtime still running is
 * closed and every folder made by `folder()` removed.
 */
export function runtimesOnDataFolders(prefix: string, first?: () => Promise<void>) {
  const folders: string[] = [];
  const runtimes: LocalRuntime[] = [];
  afterEach(async () => {
    await first?.();
    for (const runtime of runtimes.splice(0)) await runtime.close();
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  const keep = (runtime: LocalRuntime): LocalRuntime => {
    runtimes.push(runtime);
    return runtime;
  };
  return {
    /** A fresh temporary folder, removed after the test. */
    folder(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      folders.push(dir);
      return dir;
    },
    /** Starts the embedded default on ephemeral ports with one container (and `options`), closed after the test. */
    start: async (options: LocalRuntimeOptions): Promise<LocalRuntime> =>
      keep(await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, containers: 1, ...options })),
    /** A runtime started otherwise, closed after the test. */
    keep,
    /** Closes a runtime now (a restart on the same folder). */
    async stop(runtime: LocalRuntime): Promise<void> {
      runtimes.splice(runtimes.indexOf(runtime), 1);
      await runtime.close();
    },
  };
}
