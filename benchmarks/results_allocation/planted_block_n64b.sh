#!/bin/bash
# issue 14 (branch planted3), after planted_block_n64.sh: where the two-block cube step stops paying at
# n = 64 (planted64 data, seed 0): block cube (mixing weight of the cube rule at each SNR: 0.80, 0.55,
# 0.29) against the table-metric LNN (mixing weight of the table rule: 0.026, 0.225, 0.265).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD
S=benchmarks/planted_rule_study.py
python $S --n 64 --eps 0.3 --allocs auto --mixes 0.80 --variants cubeblk-g0
python $S --n 64 --eps 1 --allocs auto --mixes 0.55 --variants cubeblk-g0
python $S --n 64 --eps 1 --allocs auto --mixes 0.225 --variants lnn-g0@def
python $S --n 64 --eps 3 --allocs auto --mixes 0.29 --variants cubeblk-g0
python $S --n 64 --eps 3 --allocs auto --mixes 0.265 --variants lnn-g0@def
