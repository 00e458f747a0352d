"""TF 1.15's switch of its deprecation decorator's warnings: a program sets
`tensorflow.python.util.deprecation._PRINT_DEPRECATION_WARNINGS = False` (or uses its
`silence()`) to hide "... is deprecated and will be removed ..." lines; "The name tf.X is
deprecated" lines, which TF's module wrapper prints, stay. Read where the program left it,
without importing that module (nothing to read until a program imports it)."""

from __future__ import annotations

import sys

_MODULE = "tfcluster.python.util.deprecation"


def printing() -> bool:
    """Whether the deprecation decorator's warnings print now."""
    module = sys.modules.get(_MODULE)
    return module is None or bool(getattr(module, "_PRINT_DEPRECATION_WARNINGS", True))
