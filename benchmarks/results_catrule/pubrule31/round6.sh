#!/bin/bash
# Round 6 (session 31, 19:34 UTC, AFTER the evaluation of the adopted rule, so information for the next session
# only: not adopted, titanic not re-run): the Stein-type factor with offset 0 (max(0, 1 - c q sigma^2/||y||^2), every
# measured 1-way set below the band, 2-3-value attributes included; ONE_WAY_SHRINK_OFFSET = O, suffix @O) against the
# adopted James-Stein (offset 2), on every synthetic shape of this session (seen + held-out C), seeds 0-3.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/round6_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 \
    tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 \
    tit9-a1-m2k cat9-a03-m1k tit9-geo5-m1k tit9-a05-m1k cat7-geo-m1500 cat7-m1500 adl9-m4k adl9-geo-m4k cat8-a2-m800 \
    --eps 0.03 0.1 0.3 1 3 --variants 5,5,8 2.5,5,8~1 2.5,5,8~1@0 --seeds 0 1 2 3 > $R/raw_round6.txt 2> $R/stderr_round6.txt
uptime >> $R/round6_uptime.txt
