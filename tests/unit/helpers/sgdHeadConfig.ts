/**
 * The trainer config the head-training tests share (finetuneTrainer.test.ts, headBank.test.ts,
 * finetuneWebgpuProbe.ts): SGD at lr 0.05 with the cosine tail of 7/16, weight decay 5e-4, no input
 * noise, no dropout, init seed 0, rsb quirks, no recomputation, progress too rare to report; each
 * test picks its batch, EMA decay and checkpoint interval.
 */
import type { DeepNetwork } from '../../../src/lib/models/deep/network.ts';
import type { TrainerConfig } from '../../../src/lib/models/deep/trainer.ts';

export function sgdHeadConfig(
  network: DeepNetwork,
  steps: number,
  own: Pick<TrainerConfig, 'batchL' | 'emaDecay' | 'checkpointEvery'>,
): TrainerConfig {
  return {
    network,
    steps,
    batchL: own.batchL,
    optimizer: 'sgd',
    lr: 0.05,
    cosineFraction: 7 / 16,
    weightDecay: 5e-4,
    emaDecay: own.emaDecay,
    noiseWeak: 0,
    noiseStrong: 0,
    dropoutAttention: 0,
    dropoutFfn: 0,
    initSeed: 0,
    quirks: 'rsb',
    progressEvery: 1000,
    checkpointEvery: own.checkpointEvery,
    recompute: false,
  };
}
