#!/usr/bin/python3
"""The PyTorch side of `npm run bench:modal`, on the shapes of scripts/bench/modalStep.ts, in float32 on
the CPU (Debian's python3-torch 1.13 and python3-torchvision 0.14):
1. bank extraction: the frozen backbone's eval forward of one batch under no_grad and the features read
   into numpy, as the TypeScript side uploads, runs and reads back one batch. ResNet-50 is torchvision's
   resnet50 (fc replaced by Identity: the 2 048-d pooled feature), MobileNetV3-small the timm-layout module
   of scripts/fixtures/make_backbone_fixtures.py (pre_logits, 1 024-d), RoBERTa-base and MiniLM-L6 the
   transformers-layout modules of scripts/fixtures/make_encoder_fixtures.py at full size (the `<s>` state;
   MiniLM's masked mean). Random weights (PyTorch's default init), full rows of random token ids.
2. one head-training step per method: the methods of the deep parity oracle
   (scripts/fixtures/make_deep_fixtures.py, its Run class and losses) with the features-tier head in place
   of the FT-Transformer (LAMDA bottleneck d→256→ReLU→fc, or RobertaClassificationHead with dropout 0.1),
   μ = 1, λ_u = 1, torch.optim.SGD (momentum 0.9, coupled decay 5e-4 on the weights, cosine lr) and the
   EMA shadow, and bank views gathered from a pool of random feature rows per step (as the TypeScript side
   copies bank rows).
Timings are medians (by CPU time) after one warm-up.

Usage: /usr/bin/python3 scripts/bench/modal_step.py '<options JSON>' [THREADS]   prints one JSON object.
"""
import json
import math
import os
import sys
import time

# OpenBLAS (numpy's and torch's GEMMs on Debian) sizes its thread pool from the environment when it
# loads, whatever torch.set_num_threads says later: apply THREADS before numpy's import loads it, or a
# "1 thread" run keeps one busy thread per core (CPU time ≈ 2 × wall; deep_step.py does the same).
if len(sys.argv) > 2 and sys.argv[2] != 'default':
    for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
        os.environ[_var] = sys.argv[2]

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'fixtures'))
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402
import make_backbone_fixtures as mb  # noqa: E402
import make_deep_fixtures as md  # noqa: E402
import make_encoder_fixtures as me  # noqa: E402

# make_deep_fixtures sets float64 for its oracle; the bench, like the TypeScript side, is float32.
torch.set_default_dtype(torch.float32)
md.NP_DTYPE = np.float32


def timed(f):
    t0, c0 = time.perf_counter(), time.process_time()
    f()
    return dict(wallMs=(time.perf_counter() - t0) * 1000, cpuMs=(time.process_time() - c0) * 1000)


def median(times):
    s = sorted(times, key=lambda t: t['cpuMs'])
    return s[len(s) // 2]


# ---------------------------------------------------------------- extraction
def backbone(name):
    """(module, forward(x) -> features) in eval mode."""
    if name == 'resnet50':
        m = torchvision.models.resnet50()
        m.fc = nn.Identity()
        return m.eval(), m
    if name == 'mnv3-small':
        m = mb.MobileNetV3(mb.MNV3_SMALL_100, 16, 1024).eval()
        return m, m.pre_logits
    if name == 'roberta-base':
        m = me.RobertaModel(me.ROBERTA_BASE).eval()
        return m, lambda ids, mask: m(ids, mask)[:, 0]
    if name == 'minilm-l6':
        m = me.BertModel(me.MINILM_L6).eval()
        return m, lambda ids, mask: me.mean_pooling(m(ids, mask), mask)
    raise ValueError(f'unknown backbone {name}')


def extract_row(spec, batches):
    name, size, batch = spec['backbone'], spec['size'], spec['batch']
    text = name in ('roberta-base', 'minilm-l6')
    _, fwd = backbone(name)
    g = torch.Generator().manual_seed(7)
    if text:
        vocab = (me.ROBERTA_BASE if name == 'roberta-base' else me.MINILM_L6).vocab_size
        args = (torch.randint(5, vocab, (batch, size), generator=g), torch.ones(batch, size, dtype=torch.long))
    else:
        args = (torch.randn(batch, 3, size, size, generator=g),)

    def one():
        with torch.no_grad():
            fwd(*args).numpy().copy()

    times = [timed(one) for _ in range(batches + 1)]
    m = median(times[1:])
    items = batch * (size if text else 1)
    return dict(m, backbone=name, size=size, batch=batch, unit='tokens' if text else 'images',
                perSecondWall=items / (m['wallMs'] / 1000), perSecondCpu=items / (m['cpuMs'] / 1000))


# ---------------------------------------------------------------- head steps
HEAD = {}  # the head of the row being run: modality, dim, classes (make_deep_fixtures calls these globals)


def head_specs(s):
    d, c = s['dim'], s['classes']
    u = lambda fan: 1 / math.sqrt(fan)
    if s['modality'] == 'image':
        return [('bottleneck.weight', (d, 256), 'uniform', u(d), True),
                ('bottleneck.bias', (256,), 'uniform', u(d), False),
                ('fc.weight', (256, c), 'uniform', u(256), True),
                ('fc.bias', (c,), 'uniform', u(256), False)]
    # RobertaClassificationHead: N(0, 0.02) weights (a uniform of the same spread here), zero biases.
    b = 0.02 * math.sqrt(3)
    return [('dense.weight', (d, d), 'uniform', b, True), ('dense.bias', (d,), 'zeros', None, False),
            ('out_proj.weight', (d, c), 'uniform', b, True), ('out_proj.bias', (c,), 'zeros', None, False)]


def head_forward(s, P, x):
    if s['modality'] == 'image':
        return torch.relu(x @ P['bottleneck.weight'] + P['bottleneck.bias']) @ P['fc.weight'] + P['fc.bias']
    h = torch.tanh(F.dropout(x, 0.1, training=True) @ P['dense.weight'] + P['dense.bias'])
    return F.dropout(h, 0.1, training=True) @ P['out_proj.weight'] + P['out_proj.bias']


class HeadRun(md.Run):
    """make_deep_fixtures.Run over bank views: μ = 1, λ_u = 1, SGD with decay 5e-4 (§7.2)."""

    def __init__(self, s, method, data, steps, pool):
        super().__init__(s, md.init_weights(s, 0), method, 'readme', 'rsb', HYPER.get(method, {}), data, steps, 4)
        self.m = dict(md.METHODS[method], mu=0 if method == 'ftt' else 1)
        self.lam = 1
        decay = [self.P[n] for n, *_r, dec in head_specs(s) if dec]
        nodecay = [self.P[n] for n, *_r, dec in head_specs(s) if not dec]
        self.opt = torch.optim.SGD([dict(params=decay, weight_decay=5e-4), dict(params=nodecay, weight_decay=0.0)],
                                   lr=5e-4, momentum=0.9, dampening=0, nesterov=False)
        self.pool = pool

    def views(self, b):
        """Bank rows by (row, view, k), as the TypeScript side's randomBank: a copy out of the pool."""
        n = self.pool.shape[0]
        rows = lambda idx, view, k, u: torch.from_numpy(self.pool[(idx * 8 + view * 2 + k + u) * 2654435761 % n])
        xl = rows(b['idxL'], 1, b['kL'], 0)
        idxU = b['idxU'][:self.m['mu'] * len(b['idxL'])]
        u = [rows(idxU, 1 if v == 'weak' else 2, b['kU'][i][:len(idxU)], 7) for i, v in enumerate(self.m['views'])]
        return xl, u, idxU


HYPER = dict(pseudolabel=dict(threshold=0.95), uda=dict(threshold=0.8), fixmatch=dict(threshold=0.95),
             flexmatch=dict(threshold=0.95))


def head_row(spec, method, reps):
    s = dict(modality=spec['modality'], dim=spec['dim'], classes=spec['classes'])
    nL, nU, B = 4000, 20000, spec['batch']
    rs = np.random.RandomState(11)
    pool = rs.standard_normal((512, s['dim'])).astype(np.float32)
    if s['modality'] == 'image':
        pool = np.abs(pool)
    data = dict(Xl=np.empty((nL, 0), np.float32), yl=(np.arange(nL) % s['classes']).astype(np.int32),
                Xu=np.empty((nU, 0), np.float32), k=s['classes'])
    run = HeadRun(s, 'ftt' if method == 'supervised' else method, data, spec['steps'], pool)
    times = []
    for it in range(reps + 1):
        b = dict(idxL=rs.randint(0, nL, B), kL=rs.randint(0, 2, B), idxU=rs.randint(0, nU, B),
                 kU=[rs.randint(0, 2, B), rs.randint(0, 2, B)])
        times.append(timed(lambda: run.step(it, b)))
    return median(times[1:])


def main():
    opt = json.loads(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] != 'default':
        torch.set_num_threads(int(sys.argv[2]))
    # Run.loss and Run.__init__ look these up in their module: the head replaces the FT-Transformer.
    md.param_specs, md.forward = head_specs, head_forward
    runtime = f'torch {torch.__version__} cpu float32, {torch.get_num_threads()} threads'
    out = dict(runtime=runtime, extract={}, heads={})
    for name, spec in opt.get('extract', {}).items():
        out['extract'][name] = extract_row(spec, opt['batches'])
    for name, spec in opt.get('heads', {}).items():
        for method in spec['methods']:
            out['heads'][f'{name}/{method}'] = head_row(spec, method, opt['reps'])
    print(json.dumps(out))


if __name__ == '__main__':
    main()
