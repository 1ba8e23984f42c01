/**
 * Child-process probe for webgpuEncoders.test.ts: the tiny RoBERTa and MiniLM parity checks of
 * encoderParity.ts on the backend named by argv[2] through the CLI's initNodeBackend (webgpu: Dawn
 * for Node), then RoBERTa's dropout-on logits on that backend and on cpu (the training-mode forward,
 * compared across backends). Prints one JSON object.
 */
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../../src/cli/tfNode.ts';
import { installWasmBatchMatMul } from '../../../../src/lib/models/deep/batchMatMul.ts';
import {
  minilmEvalParity,
  robertaDropoutLogits,
  robertaEvalParity,
  robertaTrainParity,
} from './encoderParity.ts';
import { relErr } from './fixture.ts';

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
if (backend === 'wasm') installWasmBatchMatMul();
const before = tf.memory().numTensors;
const t0 = performance.now();
const robertaEval = await robertaEvalParity();
const robertaTrain = await robertaTrainParity();
const minilmEval = await minilmEvalParity();
const dropout = await robertaDropoutLogits();
const leaked = tf.memory().numTensors - before;
const seconds = (performance.now() - t0) / 1000;
const tfBackend = tf.getBackend();
await tf.setBackend('cpu');
const dropoutCpu = await robertaDropoutLogits();
process.stdout.write(
  JSON.stringify({
    backend,
    tfBackend,
    robertaEval,
    robertaTrain,
    minilmEval,
    dropoutVsCpu: relErr(dropout, dropoutCpu),
    leaked,
    seconds,
  }),
);
process.exit(0);
