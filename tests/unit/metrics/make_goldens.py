#!/usr/bin/python3
"""Golden values for the metrics tests (PROTOCOL.md §8). Run with Debian's /usr/bin/python3:

    /usr/bin/python3 tests/unit/metrics/make_goldens.py > tests/unit/metrics/goldens.json

Everything is computed with mpmath at 50 significant digits (independent of the TypeScript
formulas: the integral forms come from mpmath.quad over the piecewise-linear curve, the beta EA
from quad against the beta density), then rounded to doubles.
"""
import json
import mpmath as mp

mp.mp.dps = 50
T = [mp.mpf(i) / 5 for i in range(6)]

CURVES = {
    'E1': ['0.9', '0.85', '0.8', '0.8', '0.7', '0.6'],
    'E2': ['0.6', '0.7', '0.65', '0.75', '0.7', '0.8'],
    'E3': ['0.8'] * 6,
    'R1': ['0.512', '0.733', '0.291', '0.944', '0.05', '0.377'],
    'R2': ['1', '0', '1', '0', '1', '0'],
}


def interp(a):
    def A(t):
        i = min(int(t * 5), 4)
        w = (t - T[i]) * 5
        return a[i] * (1 - w) + a[i + 1] * w
    return A


def piecewise_quad(f):
    return sum(mp.quad(f, [T[i], T[i + 1]]) for i in range(5))


def integral_forms(a, betas, grids):
    A = interp(a)
    auc = piecewise_quad(A)
    intA2 = piecewise_quad(lambda t: A(t) ** 2)
    intTA = piecewise_quad(lambda t: t * A(t))
    d = [a[i + 1] - a[i] for i in range(5)]
    evm = sum(abs(x) for x in d)
    slope_mean = a[5] - a[0]
    vs = sum(mp.mpf('0.2') * (x * 5 - slope_mean) ** 2 for x in d)
    var = intA2 - auc ** 2
    rcc = None if all(x == a[0] for x in a) else (intTA - auc / 2) / (mp.sqrt(mp.mpf(1) / 12) * mp.sqrt(var))
    ea_beta = {}
    for al, be in betas:
        dens = lambda t: t ** (al - 1) * (1 - t) ** (be - 1) / mp.beta(al, be)
        ea_beta[f'{al},{be}'] = float(piecewise_quad(lambda t: dens(t) * A(t)))
    ea_grid = {}
    for w in grids:
        ea_grid[','.join(map(str, w))] = float(sum(mp.mpf(wi) * ai for wi, ai in zip(w, a)) / sum(w))
    return {
        'auc': float(auc), 'wa': float(min(a)), 'evm': float(evm), 'vs': float(vs),
        'rcc': None if rcc is None else float(rcc), 'intA2': float(intA2), 'intTA': float(intTA),
        'eaBeta': ea_beta, 'eaGrid': ea_grid,
    }


def code_forms(a):
    n = 6
    mean = sum(a) / n
    d = [a[i + 1] - a[i] for i in range(5)]
    dm = sum(d) / 5
    vs = mp.sqrt(sum((x - dm) ** 2 for x in d) / 5)
    tm = sum(T) / n
    sxy = sum((t - tm) * (x - mean) for t, x in zip(T, a))
    sxx = sum((t - tm) ** 2 for t in T)
    syy = sum((x - mean) ** 2 for x in a)
    rcc = None if all(x == a[0] for x in a) else sxy / mp.sqrt(sxx * syy)
    return {
        'auc': float(mean), 'accT0': float(a[0]), 'wa': float(min(a)),
        'evm': float(sum(abs(x) for x in d) / 5), 'vs': float(vs),
        'rcc': None if rcc is None else float(rcc),
    }


def incomplete_beta_cases():
    xs = ['0', '1e-10', '0.001', '0.05', '0.2', '0.3', '0.4', '0.5', '0.6', '0.8', '0.95', '0.999', '1']
    ab = [('1', '1'), ('2', '5'), ('3', '5'), ('0.5', '0.5'), ('0.1', '3'), ('7', '0.3'), ('10', '10'),
          ('2.5', '1.5'), ('30', '40'), ('100', '3'), ('0.01', '0.01'), ('50', '50')]
    out = []
    for a, b in ab:
        for x in xs:
            v = mp.betainc(mp.mpf(a), mp.mpf(b), 0, mp.mpf(x), regularized=True)
            out.append({'x': float(x), 'a': float(a), 'b': float(b), 'value': float(v)})
    return out


BETAS = [(2, 5), (1, 1), (0.5, 0.5), (5, 2), (3, 3)]
GRIDS = [[3, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 2], [0.5, 0, 1.5, 0, 0, 0]]

out = {'curves': {}, 'incompleteBeta': incomplete_beta_cases()}
for name, raw in CURVES.items():
    a = [mp.mpf(x) for x in raw]
    out['curves'][name] = {
        'a': [float(x) for x in a],
        'integral': integral_forms(a, BETAS, GRIDS),
        'code': code_forms(a),
    }
print(json.dumps(out, indent=1))
