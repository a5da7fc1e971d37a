source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=/tmp/main_snap
for s in 4 3; do uptime; python /tmp/main_snap/benchmarks/marginals_peers.py --datasets adult --lnn-max-iter 150 --trace-seed -1 --out /work/main/benchmarks/results_peers/v6_adult_eps01b.jsonl --epsilons 0.1 --seeds $s --methods sosproj; done; uptime
