#!/bin/bash
# Queue a sharded RAC Bench run and its merge on Slurm:
#   deploy/slurm/submit.sh 16          # 16 GPU tasks of the paper preset, then the merge
# Environment: RAC_PRESET, RAC_ALGORITHMS, RAC_BACKEND, RAC_DATA_DIR, RAC_RESULTS (see the sbatch files).
set -euo pipefail
shards=${1:?usage: submit.sh SHARDS}
here=$(dirname "$0")
array=$(sbatch --parsable --array=0-$((shards - 1)) --export=ALL "$here/rac-bench-array.sbatch")
merge=$(sbatch --parsable --dependency=afterok:"${array%%;*}" --export=ALL "$here/rac-bench-merge.sbatch")
echo "array job $array ($shards shards), merge job $merge"
