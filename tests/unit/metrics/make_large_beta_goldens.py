#!/usr/bin/python3
"""Goldens for the regularised incomplete beta at large shape parameters (issue 12, row 6):

    /usr/bin/python3 tests/unit/metrics/make_large_beta_goldens.py > tests/unit/metrics/largeBetaGoldens.json

mpmath's betainc (a hypergeometric series) gives up for a, b ≳ 1e8, so where min(a, b) ≥ 1e4 the
value is mpmath.quad of the beta density (log-space, working precision log10(a+b) + 40 digits, so
that (a−1)·ln t keeps 40 digits) over mean ± 60 standard deviations, split ever more finely towards
the mean; beyond that the mass is below e^-1800. Smaller minimum: mpmath.betainc itself (the same
quad where its series does not converge).
"""
import json
import sys
import mpmath as mp

PAIRS = [
    (1e4, 1e4), (1e5, 3e5), (1e7, 1e7), (5e7, 2e8), (1e8, 1e8), (1e8, 3e8), (2e9, 1e9), (1e12, 1e12),
    (1e15, 3e15), (1e50, 1e50), (1e100, 2e100), (1e200, 1e200), (3e300, 1e300),
    (10, 1e8), (1e3, 1e10), (1e6, 1e12), (1e8, 1e15), (1e10, 1e30), (0.5, 1e12), (1e12, 3), (1e100, 1),
    (1e-3, 1e-3), (1e-3, 2), (1e-6, 0.5),
]
KS = [-6, -2, -1, -0.3, 0, 0.3, 1, 2, 6]
GRID = [0.2, 0.4, 0.6, 0.8]


def betainc_quad(a, b, x):
    mp.mp.dps = int(mp.log10(a + b)) + 40
    a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
    r = a + b
    x0 = a / r
    sd = mp.sqrt(a * b / (r * r * (r + 1)))
    lb = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(r)
    dens = lambda t: mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log1p(-t) - lb)
    lo = max(mp.mpf(0), x0 - 60 * sd)
    hi = min(mp.mpf(1), x0 + 60 * sd)
    if x <= lo:
        return mp.mpf(0)
    if x >= hi:
        return mp.mpf(1)
    ks = [-60, -40, -25, -15, -10, -7, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 10, 15, 25, 40, 60]
    pts = [x0 + k * sd for k in ks if lo < x0 + k * sd < hi]
    if x <= x0:
        return mp.quad(dens, [lo] + [p for p in pts if p < x] + [x])
    return 1 - mp.quad(dens, [x] + [p for p in pts if p > x] + [hi])


def value(a, b, x):
    if min(a, b) >= 1e4:
        return betainc_quad(a, b, x)
    mp.mp.dps = 50
    try:
        return mp.betainc(mp.mpf(a), mp.mpf(b), 0, mp.mpf(x), regularized=True)
    except mp.libmp.NoConvergence:
        return betainc_quad(a, b, x)


out = []
for a, b in PAIRS:
    r = a + b
    x0 = a / r
    sd = (a * b / (r * r * (r + 1))) ** 0.5
    xs = sorted({x for x in [x0 + k * sd for k in KS] + GRID if 0 < x < 1})
    for x in xs:
        out.append({'x': x, 'a': a, 'b': b, 'value': float(value(a, b, x))})
    print(f'{a:g}, {b:g}: {len(xs)} values', file=sys.stderr, flush=True)
print(json.dumps(out, indent=0))
