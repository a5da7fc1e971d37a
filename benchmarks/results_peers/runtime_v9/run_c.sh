#!/usr/bin/env bash
# The shipped default (CUBE_GAP_TOL None; snapshot /tmp/snap_cubefinal = git archive e31f449 sosproj) against main at
# e1ff240 (/tmp/snap_e1ff240), paired, no peer; one BLAS thread: releases identical, CPU of the added certificate.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9
uptime
python benchmarks/runtime_vs_pgm.py --label e31f449 --sosproj-src ${NEW_SRC:-/tmp/snap_cubefinal} --baseline-src ${BASE_SRC:-/tmp/snap_e1ff240} \
    --out $R/rows_paired_c.jsonl --sosproj-repeats 1 --cells none:nltcs:0.3:0,1 none:nltcs:1:0,1 none:nltcs:3:0,1 none:nltcs:10:0
uptime
