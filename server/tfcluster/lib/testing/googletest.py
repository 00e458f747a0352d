"""tf.test.main and tf.test.get_temp_dir: absltest under tf.app.run, one temporary directory
per process (removed at exit), as TF's googletest."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import threading
from typing import Any

from tfcluster.settings import environment

_temp_dir: str | None = None
_temp_dir_lock = threading.Lock()


def get_temp_dir() -> str:
    """This process's temporary directory for tests (under $TEST_TMPDIR when set)."""
    global _temp_dir
    with _temp_dir_lock:
        if _temp_dir is None:
            root = environment.test_tmpdir()
            if root:
                made = tempfile.mkdtemp(prefix=root)
            else:
                program = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "test")
                made = tempfile.mkdtemp(prefix=program.replace(".py", "") + "_")
            atexit.register(shutil.rmtree, made, True)
            _temp_dir = made
        return _temp_dir


def main(argv: list[str] | None = None) -> Any:
    """Runs the tests of the __main__ module with absltest (flags parsed as by tf.app.run)."""
    from absl.testing import absltest

    from tfcluster.lib.platform import app

    def run_tests(args: list[str]) -> None:
        absltest.main(argv=args)

    app.run(main=run_tests, argv=sys.argv if argv is None else argv)
