#!/bin/bash
# Does the allocation's mixing weight t (fitted with every set measured, AUTO_MIX_CAT_LNN) still suit the kept sets
# under the skip rule (tau = 5)? Fit shapes, seed 0, t = 0, 1, 2 fixed (labels "5/t=..."), against the rule's t.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule
for t in 0 1 2; do
    python benchmarks/catrule_study.py --shapes tit9-skew-m1k tit9-m1k cat9-wide-m1k --eps 0.03 0.1 0.3 1 3 \
        --taus 5 --mix $t --seeds 0 | tail -n +2 >> $R/raw_mix.txt 2>> $R/stderr_fit.txt
done
