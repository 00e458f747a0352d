#!/usr/bin/env bash
# tfcluster against tensorflow-cpu, side by side; see bench/README.md. Arguments go to run.py.
set -euo pipefail
cd "$(dirname "$0")/.."
args=""
if [ $# -gt 0 ]; then args=$(printf ' %q' "$@"); fi  # quoted, so the command can be rerun
export BENCH_COMMAND="bench/run.sh${args}"
exec "${PYTHON:-python}" bench/run.py "$@"
