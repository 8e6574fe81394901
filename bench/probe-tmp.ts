import { performance as perf } from 'node:perf_hooks';
import { startLocal } from '../local/runtime';
import { seed } from './scale';
import { openReleasesOfVendor } from '../functions/application/releases/replan-vendor-releases';
const N = Number(process.env.N ?? 10000);
(async () => {
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, clockStart: new Date('2022-12-02T16:05:00+05:30'), frozen: true });
  const s = await seed(runtime, N, 0);
  console.log('seed', s);
  const reads: any = runtime.deps.reads;
  for (let k = 0; k < 2; k++) {
    let elu = perf.eventLoopUtilization(); let cpu = process.cpuUsage();
    let t = performance.now();
    const entries = await reads.openEntries('scale-hot', '0', '~');
    console.log('index entries', entries.length, ((performance.now() - t) / 1000).toFixed(2), 's main ELU', perf.eventLoopUtilization(elu).utilization.toFixed(2), 'cpu s', (process.cpuUsage(cpu).user / 1e6).toFixed(2));
    elu = perf.eventLoopUtilization(); cpu = process.cpuUsage();
    t = performance.now();
    const rel = await openReleasesOfVendor(runtime.deps, 'scale-hot');
    console.log('openReleasesOfVendor', rel.length, ((performance.now() - t) / 1000).toFixed(2), 's main ELU', perf.eventLoopUtilization(elu).utilization.toFixed(2), 'cpu s', (process.cpuUsage(cpu).user / 1e6).toFixed(2));
  }
  await runtime.close();
})();
