#!/usr/bin/python3
"""The PyTorch side of `npm run bench:deep` and of the device kit (scripts/device/gpu-check.sh):
one training step per deep method (8 blocks × 192 at rsb size, 64 labeled + μ·64 unlabeled rows,
dropout on, Adam + coupled L2 + EMA), and an eval-mode prediction, in float32 on the CPU or on a
CUDA GPU. The model and the methods are those of the parity oracle
(scripts/fixtures/make_deep_fixtures.py), so both sides compute the same step.

Usage: python3 scripts/bench/deep_step.py DATASETS METHODS REPS PREDICT_ROWS [THREADS]
                                          [--device cpu|cuda] [--size rsb|tiny|B:D:H:F] [--flops-only]
  DATASETS like letter:16:26,covertype:54:7 ; METHODS comma list ; prints one JSON object.
  THREADS        on the CPU, torch's and OpenBLAS's threads (bench:deep passes 1, as the TS side
                 runs one); 'default' leaves both pools as they come (OpenBLAS: one per core).
  --device cuda  runs on the GPU and synchronises before and after each timed step (CUDA kernels
                 are asynchronous: without it the clock would stop at the last launch).
  --size tiny    the test network (2 blocks × 32); or blocks:dToken:heads:ffnHidden (dry runs).
  --flops-only   prints each step's FLOP count and does no work (a test compares it with
                 scripts/device/stepFlops.ts).
Each step also reports `flops`, the GEMM FLOPs of the step counted analytically (step_flops below:
2·m·n·k per matrix product, backward twice the forward on passes that carry a gradient;
element-wise ops, softmax, LayerNorm and the optimiser not counted), and `tflops`, that count
over the step's wall time. Note: the oracle reads its loss terms back to the host inside each step
(float(...) for the fixtures), which a production PyTorch loop would not do every step.
"""
import argparse
import json
import os
import sys
import time


def size_blas_threads(argv):
    """Applies THREADS (the 5th positional argument) to OpenBLAS before anything loads it.

    Debian's numpy and torch both do their GEMMs in OpenBLAS, whose thread pool is sized from the
    environment when the library loads (one thread per core), whatever torch.set_num_threads says:
    at "1 thread" a step still ran two busy threads (CPU time ≈ 2 × wall, part of it spin-waiting).
    numpy's import below loads it, so this runs first.
    """
    valued = ('--device', '--size', '--warmup')
    pos = [x for i, x in enumerate(argv[1:]) if not x.startswith('--') and argv[i] not in valued]
    if len(pos) >= 5 and pos[4] != 'default':
        for var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
            os.environ[var] = pos[4]


size_blas_threads(sys.argv)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures'))
import numpy as np  # noqa: E402

SIZES = dict(rsb=dict(blocks=8, dToken=192, heads=8, ffnHidden=256),  # src/lib/models/deep/sizes.ts
             tiny=dict(blocks=2, dToken=32, heads=4, ffnHidden=64))
MU7 = ('uda', 'fixmatch', 'flexmatch', 'softmatch')


def step_passes(method, bl=64):
    """(rows, carries a gradient) of each forward in one step, as the oracle's Run.loss computes them."""
    if method == 'ftt':
        return [(bl, True)]
    if method == 'pseudolabel':
        return [(bl, True), (bl, True)]
    if method in ('pimodel', 'ict'):
        return [(bl, True), (bl, False), (bl, True)]
    if method == 'meanteacher':  # rsb quirk: the student's output is detached
        return [(bl, True), (bl, False), (bl, False)]
    if method in MU7:
        return [(bl, True), (7 * bl, False), (7 * bl, True)]
    raise ValueError(f'unknown deep method {method!r}')


def forward_macs_per_row(s):
    n, D, Fh = s['features'] + 1, s['dToken'], s['ffnHidden']

    def block(q):
        return q * D * D + 2 * n * D * D + 2 * n * n * D + 2 * q * n * D + q * D * D + q * D * 2 * Fh + q * Fh * D

    return (s['blocks'] - 1) * block(n) + block(1) + D * s['classes']


def step_flops(method, s, bl=64):
    per_row = 2 * forward_macs_per_row(s)
    return sum(rows * per_row * (3 if grad else 1) for rows, grad in step_passes(method, bl))


def parse_size(text):
    """'rsb', 'tiny' or 'blocks:dToken:heads:ffnHidden' (as scripts/device/bench.ts reads it)."""
    if text in SIZES:
        return SIZES[text]
    try:
        b, dt, h, f = (int(x) for x in text.split(':'))
        assert min(b, dt, h, f) >= 1 and dt % h == 0
    except (ValueError, AssertionError):
        raise argparse.ArgumentTypeError(f'--size: rsb, tiny or blocks:dToken:heads:ffnHidden (dToken a multiple of heads), got {text!r}')
    return dict(blocks=b, dToken=dt, heads=h, ffnHidden=f)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('datasets')
    ap.add_argument('methods')
    ap.add_argument('reps', type=int)
    ap.add_argument('predict_rows', type=int)
    ap.add_argument('threads', nargs='?', default='default')
    ap.add_argument('--device', choices=['cpu', 'cuda'], default='cpu')
    ap.add_argument('--size', type=lambda t: (parse_size(t), t)[1], default='rsb')  # checked, kept as text
    ap.add_argument('--flops-only', action='store_true')
    ap.add_argument('--warmup', type=int, default=1, help='untimed steps first (deep.mjs passes the TS side the same)')
    return ap.parse_args()


def main():
    a = parse()
    datasets = [(x.split(':')[0], int(x.split(':')[1]), int(x.split(':')[2])) for x in a.datasets.split(',')]
    methods = a.methods.split(',')
    shape = lambda d, k: dict(parse_size(a.size), features=d, classes=k)  # noqa: E731
    if a.flops_only:
        print(json.dumps({f'{name}/{meth}': step_flops(meth, shape(d, k)) for name, d, k in datasets for meth in methods}))
        return

    import torch  # OpenBLAS's threads: size_blas_threads above
    import make_deep_fixtures as m

    torch.set_default_dtype(torch.float32)
    m.NP_DTYPE = np.float32
    m.DROPOUT = (0.2, 0.1)
    if a.threads != 'default':
        torch.set_num_threads(int(a.threads))
    cuda = a.device == 'cuda'
    if cuda:
        if not torch.cuda.is_available():
            sys.exit('deep_step.py --device cuda: torch.cuda.is_available() is False (no GPU, or a CPU-only torch).')
        # The oracle builds its tensors with factory defaults: make those the GPU.
        if hasattr(torch, 'set_default_device'):
            torch.set_default_device('cuda')
        else:  # torch < 2.0
            torch.set_default_tensor_type('torch.cuda.FloatTensor')
        where = f'cuda ({torch.cuda.get_device_name(0)}, CUDA {torch.version.cuda})'
    else:
        blas = os.environ.get('OPENBLAS_NUM_THREADS', 'one per core')
        where = f'cpu, {torch.get_num_threads()} intra-op threads, OpenBLAS threads: {blas}'
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    out = dict(runtime=f'torch {torch.__version__} {where} float32', device=a.device, size=a.size, steps={}, predict={})
    for name, d, k in datasets:
        rs = np.random.RandomState(0)
        s = shape(d, k)
        w0 = m.init_weights(s, 0)
        data = dict(Xl=rs.standard_normal((256, d)).astype(np.float32), yl=(np.arange(256) % k).astype(np.int32),
                    Xu=rs.standard_normal((4096, d)).astype(np.float32), k=k)
        for meth in methods:
            hyper = dict(pseudolabel=dict(threshold=0.95), uda=dict(threshold=0.8), fixmatch=dict(threshold=0.95),
                         flexmatch=dict(threshold=0.95)).get(meth, {})
            run = m.Run(s, w0, meth, 'rsb', 'rsb', hyper, data, 1000, 0)
            times = []
            warmup = max(1, a.warmup)
            for it in range(warmup + a.reps):
                b = dict(idxL=rs.randint(0, 256, 64), idxU=rs.randint(0, 4096, 7 * 64),
                         zl=rs.standard_normal((64, d)), zu=[rs.standard_normal((7 * 64, d)) for _ in range(2)])
                sync()
                t0, c0 = time.perf_counter(), time.process_time()
                run.step(it, b)
                sync()
                times.append(dict(wallMs=(time.perf_counter() - t0) * 1000, cpuMs=(time.process_time() - c0) * 1000))
            timed = sorted(times[warmup:], key=lambda x: x['cpuMs'] if not cuda else x['wallMs'])
            best = timed[len(timed) // 2]  # median after the warm-up
            flops = step_flops(meth, s)
            out['steps'][f'{name}/{meth}'] = dict(best, flops=flops, tflops=flops / (best['wallMs'] * 1e-3) / 1e12)
        if a.predict_rows > 0:
            P = {kk: torch.tensor(v) for kk, v in w0.items()}
            X = torch.tensor(rs.standard_normal((a.predict_rows, d)).astype(np.float32))
            saved, m.DROPOUT = m.DROPOUT, None
            with torch.no_grad():
                m.forward(s, P, X[:64])
                sync()
                t0, c0 = time.perf_counter(), time.process_time()
                for r0 in range(0, a.predict_rows, 512):
                    m.forward(s, P, X[r0:r0 + 512])
                sync()
                out['predict'][name] = dict(rows=a.predict_rows, ms=(time.perf_counter() - t0) * 1000,
                                            cpuMs=(time.process_time() - c0) * 1000)
            m.DROPOUT = saved
    print(json.dumps(out))


if __name__ == '__main__':
    main()
