#!/bin/bash
# Held-out evaluation of the L1 correction (session 37, wide37) on titanic and adult, paired with the current default
# (variant 0: WIDE_L1_GAMMA = 0) at the same seed (rng = seed, as the peers' rows), 5 seeds, epsilon 0.03-10.
# (a first start with the rule before its gate was stopped after 25 s when the gate was decided from the fit alone,
# unread: raw_heldout_ungated_partial.txt, titanic rows only, identical to the gated ones: titanic always skips a set.)
# Variant G = the exponent chosen on the synthetic fit (fixed before this script ran; COMMAND.md, docs).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
G=${G:-1.5}
uptime; date -u
python benchmarks/wide37_study.py --dataset titanic adult --eps 0.03 0.1 0.3 1 3 10 --variants 0 $G \
    --seeds 0 1 2 3 4 --rng-offset 0
uptime; date -u
