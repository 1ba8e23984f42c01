#!/usr/bin/python3
"""The Python side of `npm run bench`: fit scikit-learn's LabelPropagation and LabelSpreading and
xgboost's XGBClassifier on the bench plan's cells, in one process, and print JSON timings.

Same cells as the browser/Node bench: iris + wine, all settings, labels 5 and 10, seeds 0-4,
t at every grid point for LP/LS and at t = 0 for XGBoost (a flat baseline). The split, the
scaling and the data preparation are excluded from the timed part, exactly as in the TS cell
timing (fit_ms + predict_ms).

Run with Debian's python3 (python3-sklearn 1.2, python3-xgboost 1.7): /usr/bin/python3.
"""
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'fixtures'))
import numpy as np  # noqa: E402
import rsb_protocol as rp  # noqa: E402
import sklearn  # noqa: E402
import xgboost  # noqa: E402
from sklearn.semi_supervised import LabelPropagation, LabelSpreading  # noqa: E402
from xgboost import XGBClassifier  # noqa: E402

warnings.filterwarnings('ignore')


def sk_fit_predict(model, c):
    Xl, yl, Xu, Xe = c['Xl'], c['yl'], c['Xu'], c['Xe']
    X = np.vstack([Xl, Xu])
    y = np.concatenate([yl, -np.ones(len(Xu), dtype=np.int64)])
    t0 = time.perf_counter()
    model.fit(X, y)
    t1 = time.perf_counter()
    model.predict(Xe)
    t2 = time.perf_counter()
    return (t1 - t0) * 1000, (t2 - t1) * 1000


def xgb_fit_predict(c):
    Xl, yl, Xe = c['Xl32'], c['yl'], c['Xe32']
    # XGBClassifier needs labels 0..n-1: re-encode the labeled classes (as the original did).
    classes, enc = np.unique(yl, return_inverse=True)
    model = XGBClassifier(n_jobs=1, tree_method='exact')
    t0 = time.perf_counter()
    model.fit(Xl, enc)
    t1 = time.perf_counter()
    model.predict(Xe)
    t2 = time.perf_counter()
    return (t1 - t0) * 1000, (t2 - t1) * 1000


def main():
    datasets = sys.argv[1].split(',') if len(sys.argv) > 1 else ['iris', 'wine']
    seeds = range(int(sys.argv[2])) if len(sys.argv) > 2 else range(5)
    rows = []
    wall0 = time.perf_counter()
    for ds in datasets:
        X, y = rp.load_dataset(ds)
        for setting in rp.SETTINGS:
            for labels in (5, 10):
                for seed in seeds:
                    for ti in range(6):
                        split = rp.make_split(X, y, setting, labels, ti, seed)
                        c = rp.cell_data(X, y, split)
                        for name, make in (('lp', lambda: LabelPropagation(kernel='rbf', gamma=1, max_iter=10000, tol=1e-3)),
                                           ('ls', lambda: LabelSpreading(kernel='rbf', gamma=1, alpha=0.2, max_iter=10000, tol=1e-3))):
                            fit, pred = sk_fit_predict(make(), c)
                            rows.append({'algorithm': name, 'dataset': ds, 'fit_ms': fit, 'predict_ms': pred})
                        if ti == 0:
                            fit, pred = xgb_fit_predict(c)
                            rows.append({'algorithm': 'xgb', 'dataset': ds, 'fit_ms': fit, 'predict_ms': pred})
    wall = (time.perf_counter() - wall0) * 1000
    print(json.dumps({
        'runtime': f'python {sys.version.split()[0]}, scikit-learn {sklearn.__version__}, xgboost {xgboost.__version__}, numpy {np.__version__}',
        'wall_ms': wall,
        'cells': rows,
    }))


if __name__ == '__main__':
    main()
