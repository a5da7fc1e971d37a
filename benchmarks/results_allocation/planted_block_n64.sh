#!/bin/bash
# issue 14 (branch planted3): the two-block degree-4 cube step (block_cube_basis, order 1,057) at n = 64,
# planted64's data (data seed 0), seed 0: accuracy against the table-metric LNN alone, and its CPU time.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD
S=benchmarks/planted_rule_study.py
python $S --n 64 --eps 0.03 0.1 --allocs auto --mixes 0.95 --variants cubeblk-g0
python $S --n 64 --eps 0.03 0.1 --allocs rp --variants lnn-g0@def cubeblk-g0
python $S --n 64 --eps 0.3 --allocs auto --mixes 0.8 --variants cubeblk-g0
python $S --n 64 --eps 1 --allocs rp --variants blue trunc lnn-g0@def lnn-g1@def
