"""Records TensorFlow's reference values: runs every recorder (record_*.py here), or the
named ones, with the Python of TensorFlow's venv (bench/.venv-tf, made on first use).

    python tests/tf_reference/run.py            # all recorders
    python tests/tf_reference/run.py layers     # record_layers.py only

The test suite never needs TensorFlow: it reads what this wrote into data/.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def tf_python() -> str:
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import run as bench_run  # bench/run.py owns the TensorFlow venv

    return bench_run.ensure_venv()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("areas", nargs="*", help="recorders to run (default: all)")
    args = parser.parse_args()
    found = sorted(glob.glob(os.path.join(HERE, "record_*.py")))
    scripts = {os.path.basename(p)[len("record_") : -3]: p for p in found}
    wanted = args.areas or sorted(scripts)
    unknown = [a for a in wanted if a not in scripts]
    if unknown:
        print(f"no recorder for {unknown}; have {sorted(scripts)}", file=sys.stderr)
        return 2
    python = tf_python()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    failed = []
    for i, area in enumerate(wanted, 1):
        start = time.monotonic()
        print(f"[tf_reference {i}/{len(wanted)}] {area} ...", flush=True)
        done = subprocess.run([python, scripts[area]], cwd=HERE, env=env, check=False)
        took = time.monotonic() - start
        print(f"[tf_reference {i}/{len(wanted)}] {area}: rc={done.returncode} ({took:.1f}s)")
        if done.returncode:
            failed.append(area)
    if failed:
        print(f"failed: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
