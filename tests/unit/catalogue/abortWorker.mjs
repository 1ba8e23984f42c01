// A worker_threads entry for the abort contract: runs one long fit, aborts it when the parent says so.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { prepareLongFit } = await import('./abortHarness.ts');
const run = await prepareLongFit(workerData.id);
const controller = new AbortController();
parentPort.on('message', (m) => {
  if (m === 'abort') controller.abort();
});
parentPort.postMessage({ type: 'started' });
try {
  await run(controller.signal);
  parentPort.postMessage({ type: 'finished' });
} catch (e) {
  parentPort.postMessage({ type: 'error', name: e.name, message: e.message });
}
