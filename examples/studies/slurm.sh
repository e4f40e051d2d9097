#!/bin/bash
# A design study across the nodes of a Slurm cluster (docs/studies.md, "Across nodes: MPI").
# Submit from the folder that holds the study:  sbatch slurm.sh whatif.toml
#SBATCH --job-name=simfa-sweep
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=32
#SBATCH --time=02:00:00
# One rank per core: rank 0 stores the results, the other ranks simulate. The database lives on a
# file system rank 0 can write; submitting the same script again completes a sweep that ran out
# of time (points already stored are skipped).
set -euo pipefail
study=${1:-whatif.toml}
db="${SLURM_SUBMIT_DIR:-.}/$(basename "$study" .toml).sqlite"
srun simfa sweep "$study" --db "$db"
