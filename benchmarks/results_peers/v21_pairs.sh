#!/bin/bash
# The opt-in private pair selection (selection="pairs") re-run on main 5eeea8e (session 38, lead): since session 37
# the categorical default applies the L1 correction of the allocation (wide37), which the selection's measurement
# also uses, so the v19 rows (main 622c757) no longer describe the opt-in. Adult and titanic at the AIM cells'
# epsilons, seeds 0-4. The code is the frozen snapshot `git archive 5eeea8e sosproj | tar -x -C /tmp/lead38_main`.
# Usage: bash benchmarks/results_peers/v21_pairs.sh > benchmarks/results_peers/v21_pairs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead38_main:$PWD
uptime
# NB: `python -c` puts the working directory first on sys.path, so this line printed main's copy
# (/work/main/sosproj, then also at 5eeea8e); the benchmark script below has benchmarks/ first, then the snapshot.
python -c "import sosproj; print(sosproj.__file__)"
python benchmarks/marginals_peers.py --datasets adult titanic --methods sosproj_pairs --epsilons 0.3 1 3 \
    --seeds 0 1 2 3 4 --out benchmarks/results_peers/v21_pairs.jsonl
uptime
