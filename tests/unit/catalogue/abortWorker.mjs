// A worker_threads entry for the abort contract: runs one long fit, tells the parent when it reaches
// the checkpoint the abort is armed at, and aborts when the parent's message arrives (at a yield).
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { ARM_AT_CHECKPOINT, prepareLongFit } = await import('./abortHarness.ts');
const run = await prepareLongFit(workerData.id);
const controller = new AbortController();
parentPort.on('message', (m) => {
  if (m === 'abort') controller.abort();
});
let checkpoints = 0;
const onCheckpoint = () => {
  if (++checkpoints === ARM_AT_CHECKPOINT) parentPort.postMessage({ type: 'armed' });
};
try {
  await run(controller.signal, onCheckpoint);
  parentPort.postMessage({ type: 'finished', checkpoints });
} catch (e) {
  parentPort.postMessage({ type: 'error', name: e.name, message: e.message, checkpoints });
}
