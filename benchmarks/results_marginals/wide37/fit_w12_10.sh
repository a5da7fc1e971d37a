#!/bin/bash
# The fit cell round 4 cut for time (w12-bell-m20k at epsilon 10), the chosen variant only, after the choice.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime; date -u
python benchmarks/wide37_study.py --shapes w12-bell-m20k --eps 10 --variants 0 1S --seeds 0 1 2
uptime; date -u
