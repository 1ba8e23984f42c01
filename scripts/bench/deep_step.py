#!/usr/bin/python3
"""The PyTorch side of `npm run bench:deep`: one training step per deep method at rsb size
(8 blocks × 192, 64 labeled + μ·64 unlabeled rows, dropout on, Adam + coupled L2 + EMA), and an
eval-mode prediction, in float32 on the CPU. The model and the methods are those of the parity
oracle (scripts/fixtures/make_deep_fixtures.py), so both sides compute the same step.

Usage: /usr/bin/python3 scripts/bench/deep_step.py DATASETS METHODS REPS PREDICT_ROWS [THREADS]
  DATASETS like letter:16:26,covertype:54:7 ; METHODS comma list ; prints one JSON object.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'fixtures'))
import numpy as np  # noqa: E402
import make_deep_fixtures as m  # noqa: E402
import torch  # noqa: E402

torch.set_default_dtype(torch.float32)
m.NP_DTYPE = np.float32
m.DROPOUT = (0.2, 0.1)


def main():
    datasets = [(s.split(':')[0], int(s.split(':')[1]), int(s.split(':')[2])) for s in sys.argv[1].split(',')]
    methods = sys.argv[2].split(',')
    reps, predict_rows = int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) > 5 and sys.argv[5] != 'default':
        torch.set_num_threads(int(sys.argv[5]))
    out = dict(runtime=f'torch {torch.__version__} cpu float32, {torch.get_num_threads()} threads', steps={}, predict={})
    for name, d, k in datasets:
        rs = np.random.RandomState(0)
        s = dict(blocks=8, dToken=192, heads=8, ffnHidden=256, features=d, classes=k)
        w0 = m.init_weights(s, 0)
        data = dict(Xl=rs.standard_normal((256, d)).astype(np.float32), yl=(np.arange(256) % k).astype(np.int32),
                    Xu=rs.standard_normal((4096, d)).astype(np.float32), k=k)
        for meth in methods:
            hyper = dict(pseudolabel=dict(threshold=0.95), uda=dict(threshold=0.8), fixmatch=dict(threshold=0.95),
                         flexmatch=dict(threshold=0.95)).get(meth, {})
            run = m.Run(s, w0, meth, 'rsb', 'rsb', hyper, data, 1000, 0)
            times = []
            for it in range(reps + 1):
                b = dict(idxL=rs.randint(0, 256, 64), idxU=rs.randint(0, 4096, 7 * 64),
                         zl=rs.standard_normal((64, d)), zu=[rs.standard_normal((7 * 64, d)) for _ in range(2)])
                t0, c0 = time.perf_counter(), time.process_time()
                run.step(it, b)
                times.append(dict(wallMs=(time.perf_counter() - t0) * 1000, cpuMs=(time.process_time() - c0) * 1000))
            timed = sorted(times[1:], key=lambda x: x['cpuMs'])
            out['steps'][f'{name}/{meth}'] = timed[len(timed) // 2]  # median after one warm-up
        if predict_rows > 0:
            P = {kk: torch.tensor(v) for kk, v in w0.items()}
            X = torch.tensor(rs.standard_normal((predict_rows, d)).astype(np.float32))
            saved, m.DROPOUT = m.DROPOUT, None
            with torch.no_grad():
                m.forward(s, P, X[:64])
                t0, c0 = time.perf_counter(), time.process_time()
                for r0 in range(0, predict_rows, 512):
                    m.forward(s, P, X[r0:r0 + 512])
                out['predict'][name] = dict(rows=predict_rows, ms=(time.perf_counter() - t0) * 1000,
                                            cpuMs=(time.process_time() - c0) * 1000)
            m.DROPOUT = saved
    print(json.dumps(out))


if __name__ == '__main__':
    main()
