#!/bin/bash
# issue 14 (branch planted3): mixing weight t of the "auto" allocation for the LNN projection in the TABLE
# metric (lnn-g0), on synthetic binary shapes other than planted64 (other data seeds / sizes / generators).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD
S=benchmarks/planted_rule_study.py
for shape in "--gen planted --n 24 --m 5000 --data-seed 1" "--gen planted --n 32 --m 20000 --data-seed 2" \
             "--gen sparse6 --n 32 --m 10000 --data-seed 3" "--gen planted --n 48 --m 20000 --data-seed 4"; do
  python $S $shape --eps 0.03 0.1 0.3 1 3 --seeds 0 --allocs auto --mixes 0 0.3 0.6 1 1.5 --variants lnn-g0@def
done
