"""tf.flags / tf.app.flags: absl.flags, as in TF 1.15, with TF's two differences.

- `FLAGS` parses sys.argv on the first read of a flag's value (absl's raises
  UnparsedFlagAccessError instead), so TF1 programs that read FLAGS at import time work.
- DEFINE_string/boolean/bool/float/integer accept TF's old keyword names
  (flag_name, default_value, docstring).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

from absl import flags as _absl_flags
from absl.flags import *  # noqa: F403

# TF 1.15's import defines these flags before the program's own (a program printing every
# flag's value shows them): absltest's (test_srcdir, test_tmpdir, test_random_seed,
# test_randomize_ordering_seed, xml_output_file), which TF's googletest imports, and pfor's.
from absl.testing import absltest  # noqa: F401

__all__ = list(_absl_flags.__all__)

if "op_conversion_fallback_to_while_loop" not in _absl_flags.FLAGS:
    _absl_flags.DEFINE_bool(
        "op_conversion_fallback_to_while_loop",
        False,
        "If true, falls back to using a while loop for ops for which a converter is not defined.",
    )

# Flags defined through the wrappers below belong to the module that called them (what
# --helpshort lists), not to this one.
_absl_flags.disclaim_key_flags()

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_names(define: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(define)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        renamed = False
        for old, new in _RENAMED_ARGUMENTS.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
                renamed = True
        if renamed:
            logging.warning(
                "Use of the keyword argument names (flag_name, default_value, docstring) is "
                "deprecated, please use (name, default, help) instead."
            )
        return define(*args, **kwargs)

    return wrapper


DEFINE_string = _accept_old_names(_absl_flags.DEFINE_string)
DEFINE_boolean = _accept_old_names(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accept_old_names(_absl_flags.DEFINE_float)
DEFINE_integer = _accept_old_names(_absl_flags.DEFINE_integer)


class _FlagValuesWrapper:
    """absl's FLAGS, parsed from sys.argv on the first read of an undefined attribute (a flag)
    when nothing parsed it yet. Everything else goes to absl's FlagValues unchanged."""

    def __init__(self, flag_values: _absl_flags.FlagValues) -> None:
        self.__dict__["_wrapped"] = flag_values

    def __getattribute__(self, name: str) -> Any:
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["_wrapped"].__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["_wrapped"].__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__["_wrapped"].__delattr__(name)

    def __dir__(self) -> list[str]:
        return list(self.__dict__["_wrapped"].__dir__())

    def __getitem__(self, name: str) -> Any:
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name: str, flag: Any) -> None:
        self.__dict__["_wrapped"][name] = flag

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__["_wrapped"]

    def __len__(self) -> int:
        return len(self.__dict__["_wrapped"])

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dict__["_wrapped"])

    def __str__(self) -> str:
        return str(self.__dict__["_wrapped"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["_wrapped"](*args, **kwargs)


FLAGS: Any = _FlagValuesWrapper(_absl_flags.FLAGS)  # type: ignore[no-redef]
