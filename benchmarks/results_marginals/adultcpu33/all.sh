#!/usr/bin/env bash
# adultcpu33: the records of this folder, in order (one heavy process at a time). Snapshots first:
#   git archive 8b6346f sosproj | tar -x -C /tmp/adultcpu33_base ; git archive <branch commit> sosproj | tar -x -C /tmp/adultcpu33_new
# (each snapshot's numba cache warmed by one release before timing). Usage: bash all.sh [paired] [step] [mst]
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/adultcpu33
B=/tmp/adultcpu33_base N=/tmp/adultcpu33_new
for what in "$@"; do
  case $what in
    paired) python $R/paired.py $R/paired.jsonl 2 adult:0.3:0 adult:0.3:1 adult:0.3:2 adult:0.3:3 adult:1:0 adult:1:1 \
              adult:1:2 adult:1:3 adult:3:0 adult:3:1 adult:3:2 adult:3:3 -- base=$B new=$N new2=$N@2 >> $R/paired.log ;;
    rerun0) python $R/paired.py $R/paired.jsonl 2 adult:0.3:0 -- base=$B new=$N new2=$N@2 >> $R/paired.log ;;
    others) python $R/paired.py $R/others.jsonl 1 titanic:0.3:0 titanic:1:0 titanic:3:0 titanic:1:1 nltcs:0.3:0 \
              nltcs:1:0 nltcs:3:0 -- base=$B new=$N new2=$N@2 >> $R/others.log ;;
    step) (uptime; PYTHONPATH=$N python $R/step_threads.py 15; uptime) >> $R/step_threads.txt 2>&1 ;;
    paired2) python $R/paired.py $R/paired_k2.jsonl 2 adult:0.3:0 adult:0.3:2 adult:1:0 adult:1:2 adult:3:0 adult:3:2 \
              -- base=$B new=$N new2=$N@k2 >> $R/paired_k2.log ;;
    others2) python $R/paired.py $R/others_k2.jsonl 1 titanic:0.3:0 titanic:1:0 titanic:3:0 nltcs:1:0 \
              -- base=$B new=$N new2=$N@k2 >> $R/others_k2.log ;;
    step2) (uptime; PYTHONPATH=$N python $R/step_threads.py 15; uptime) >> $R/step_threads.txt 2>&1 ;;
    mst2) (uptime; python $R/run_mst.py $R/rows_mst.jsonl $N $B 1:1 1:3; uptime) >> $R/run_mst.log 2>&1 ;;
    mst) (uptime; python $R/run_mst.py $R/rows_mst.jsonl $N $B 0.3:0 0.3:1 0.3:2 0.3:3 1:0 1:2 3:0 3:2; uptime) \
           >> $R/run_mst.log 2>&1 ;;
  esac
done
