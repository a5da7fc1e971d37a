import json
import time

import sosproj as sp

ds = sp.load_dataset("adult")
t = time.process_time()
rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-9, rng=0)
ri = rel.info["reconstruction_info"]
print("cpu", time.process_time() - t)
print(json.dumps({k: v for k, v in ri.items() if k != "measured_family"}, default=str)[:3000])
print("unmeasured", len(rel.info["unmeasured_sets"]))
