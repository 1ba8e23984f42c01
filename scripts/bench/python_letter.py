#!/usr/bin/python3
"""The Python side of `npm run bench:letter`: scikit-learn 1.2.1 on one letter cell, timed.

  /usr/bin/python3 scripts/bench/python_letter.py SETTING LABELS T SEED ALGOS CAP_S

ALGOS: comma list of lp, ls, tsvm. LP/LS are scikit-learn's own loop (rsb parameters: γ 1,
max_iter 10 000, tol 1e-3; LS α 0.2). TSVM is the LAMDA-SSL procedure of PROTOCOL.md §7.1 on
sklearn's SVC, one-vs-rest (make_svm_fixtures.tsvm_binary), stopped once it has run CAP_S seconds
(reported as capped, with the classes done). Inputs are the float32 casts our models receive.
Prints one JSON object per algorithm, one per line.
"""
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'fixtures'))
import numpy as np  # noqa: E402
import rsb_protocol as rp  # noqa: E402
from sklearn.semi_supervised import LabelPropagation, LabelSpreading  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

warnings.filterwarnings('ignore')


class Capped(Exception):
    pass


def tsvm_binary(XL, yL, XU, deadline, Cl=15.0, Cu=1e-4):
    clf = SVC(C=Cl, kernel='rbf', gamma='scale', tol=1e-3)
    clf.fit(XL, yL)
    yU = np.where(clf.decision_function(XU) >= 0, 1, -1)
    X2 = np.vstack([XL, XU])
    w = np.ones(len(X2))
    swaps = 0
    while Cu < Cl:
        w[len(XL):] = Cu / Cl
        clf = SVC(C=Cl, kernel='rbf', gamma='scale', tol=1e-3)
        clf.fit(X2, np.concatenate([yL, yU]), sample_weight=w)
        if np.any(yU > 0) and np.any(yU < 0):
            while True:
                if time.perf_counter() > deadline:
                    raise Capped()
                f = clf.decision_function(XU)
                eps = 1 - yU * f
                pos, neg = np.where(yU > 0)[0], np.where(yU < 0)[0]
                ia, ib = pos[np.argmax(eps[pos])], neg[np.argmax(eps[neg])]
                if eps[ia] > 0 and eps[ib] > 0 and eps[ia] + eps[ib] > 2.0:
                    yU[ia] *= -1
                    yU[ib] *= -1
                    swaps += 1
                    clf = SVC(C=Cl, kernel='rbf', gamma='scale', tol=1e-3)
                    clf.fit(X2, np.concatenate([yL, yU]), sample_weight=w)
                else:
                    break
        if time.perf_counter() > deadline:
            raise Capped()
        Cu = min(2 * Cu, Cl)
    return clf, swaps


def main():
    setting, labels, t, seed, algos, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(','), float(sys.argv[6])
    X, y = rp.load_dataset('letter')
    split = rp.make_split(X, y, setting, labels, t, seed)
    c = rp.cell_data(X, y, split)
    Xl, Xu, Xe = (c[n].astype(np.float64) for n in ('Xl32', 'Xu32', 'Xe32'))
    yl, ye = np.asarray(c['yl']), np.asarray(c['ye'])
    k = int(c['num_classes'])
    Xa = np.vstack([Xl, Xu])
    ya = np.concatenate([yl, -np.ones(len(Xu), dtype=np.int64)])
    for algo in algos:
        row = {'algorithm': algo, 'setting': setting, 'labels': labels, 't': t, 'seed': seed, 'n': len(Xa)}
        if algo in ('lp', 'ls'):
            model = (LabelPropagation(kernel='rbf', gamma=1.0, max_iter=10000, tol=1e-3) if algo == 'lp'
                     else LabelSpreading(kernel='rbf', gamma=1.0, alpha=0.2, max_iter=10000, tol=1e-3))
            t0 = time.perf_counter()
            model.fit(Xa, ya)
            t1 = time.perf_counter()
            with np.errstate(invalid='ignore', divide='ignore'):
                proba = model.predict_proba(Xe)
            pred = model.classes_[np.argmax(proba, axis=1)]
            t2 = time.perf_counter()
            row.update(fit_ms=(t1 - t0) * 1000, predict_ms=(t2 - t1) * 1000, n_iter=int(model.n_iter_),
                       accuracy=float(np.mean(pred == ye)))
        elif algo == 'tsvm':
            t0 = time.perf_counter()
            deadline = t0 + cap
            present = [cl for cl in range(k) if np.any(yl == cl)]
            scores = np.full((len(Xe), k), -np.inf)
            done = 0
            try:
                for cl in present:
                    clf, _ = tsvm_binary(Xl, np.where(yl == cl, 1, -1), Xu, deadline)
                    scores[:, cl] = clf.decision_function(Xe)
                    done += 1
                t1 = time.perf_counter()
                pred = np.argmax(scores, axis=1)
                row.update(fit_ms=(t1 - t0) * 1000, predict_ms=0, accuracy=float(np.mean(pred == ye)))
            except Capped:
                row.update(capped=True, cap_s=cap, classes_done=done, classes=len(present),
                           fit_ms=(time.perf_counter() - t0) * 1000, predict_ms=0, accuracy=None)
        print(json.dumps(row), flush=True)


if __name__ == '__main__':
    main()
