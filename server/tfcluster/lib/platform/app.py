"""tf.app.run: absl's app.run, as TF 1.15's is, with flags parsed leniently (flags no module
defined are left in argv for main instead of stopping the program)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

from absl import app as _absl_app

from tfcluster.lib.platform import flags


def _parse_flags_tolerate_undef(argv: list[str]) -> list[str]:
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


def run(main: Callable[[list[str]], Any] | None = None, argv: list[str] | None = None) -> NoReturn:
    """Parses the flags from argv (sys.argv by default), calls main(argv) with what is left
    and exits with main's return value. main defaults to the `main` of the __main__ module."""
    main = main or sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
    raise AssertionError("absl.app.run returned")  # it always exits
