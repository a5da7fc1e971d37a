#!/bin/bash
# Session 35 (binlow35): fine grid of the cube rule's t on synthetic binary data. Two processes, one BLAS thread.
# Run from the worktree root: bash benchmarks/results_allocation/binlow35/run_study.sh
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
D=benchmarks/results_allocation/binlow35
MIX="0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0 1.2"
( python benchmarks/binlow35_study.py planted32-m20k --snr 0.3 1 3 6 10 --mix $MIX --seeds 10 --current > $D/raw_planted32-m20k.txt ) &
( for s in binary16-m5k planted16-m20k binary12-m2k prodskew16-m10k binary12-m20k planted16-m5k; do
    python benchmarks/binlow35_study.py $s --snr 0.3 1 2 3.5 6 10 20 30 --mix $MIX --seeds 10 --current > $D/raw_$s.txt
  done ) &
wait
# --- as run (session 35): the loop above was stopped during binary12-m2k at snr 10 (time budget; load 4-6 on the
# box: snr 0.3-6 complete, 10 partial); binary12-m20k and planted16-m5k were not run. planted32-m20k was stopped
# after snr 3 (snr 6 / 10 not run). Then, one process at a time, the skewed product shape and the held-out shape
# (markov16: never fitted on; its rows were read only after the candidate rule was fixed from the others), on a
# smaller grid, the latter with the candidate rule of binlow35_fit.py (1.0, 15, 1, fall-off 0.2, 3) as a row of its own:
MIX2="0.5 0.6 0.7 0.8 0.9 1.0"
python benchmarks/binlow35_study.py prodskew16-m10k --snr 0.3 1 2 3.5 6 10 --mix $MIX2 --seeds 10 --current \
    > $D/raw_prodskew16-m10k.txt
python benchmarks/binlow35_study.py markov16-m8k --snr 0.3 1 2 3.5 6 10 --mix $MIX2 --seeds 10 --current \
    --rule 1 15 1 0.2 3 > $D/heldout_markov16-m8k.txt
# Information runs after the decision (main's rule kept; not used for any fit): how far past t = 1 the product shape
# goes, and how low t goes at snr 0.3 (one process at a time; the t = 1.0 rows repeat the grid's, bit for bit):
python benchmarks/binlow35_study.py prodskew16-m10k --snr 1 3.5 6 --mix 1.0 1.2 1.4 1.7 2.0 --seeds 10 \
    > $D/info_prodskew16-m10k_high_t.txt
for s in binary16-m5k planted16-m20k binary12-m2k; do
    python benchmarks/binlow35_study.py $s --snr 0.3 --mix 0 0.1 0.2 --seeds 10 > $D/info_${s}_low_t.txt
done
# NLTCS (evaluation data, read only after the decision): the t grid at epsilon 0.03 / 0.1, 20 seeds, main's rule row:
python benchmarks/binlow35_study.py nltcs --eps 0.03 0.1 --mix 0.6 0.7 0.8 0.9 1.0 1.2 --seeds 20 --current \
    > $D/info_nltcs_after_decision.txt
