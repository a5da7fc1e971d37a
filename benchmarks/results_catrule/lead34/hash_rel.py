"""SHA-256 of released residuals (titanic 0.1 / 0.3 / 1 / 3, adult 0.03 / 0.3, rng 1): run with PYTHONPATH set to
two trees to check that they release the same bits. Usage: PYTHONPATH=TREE python hash_rel.py"""

import hashlib

import numpy as np

import sosproj as sp

out = []
for name in ("titanic", "adult"):
    ds = sp.load_dataset(name)
    for eps in ((0.1, 0.3, 1.0, 3.0) if name == "titanic" else (0.03, 0.3)):
        r = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=1)
        out.append((name, eps, hashlib.sha256(np.ascontiguousarray(r.residuals).tobytes()).hexdigest()[:16]))
print(sp.__file__)
print(out)
