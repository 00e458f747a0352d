"""Packages TensorFlow 1.15 installs and TF1-era programs import directly are installed with
tfcluster too, so such a program starts with only `import tensorflow` changed."""

from __future__ import annotations

import importlib.metadata

import pytest
from packaging.requirements import Requirement

# What TF 1.15's programs import besides tensorflow itself: six for `six.moves.xrange` and
# `six.moves.urllib`, absl for flags and app, numpy and protobuf everywhere.
PROGRAM_IMPORTS = ("six", "absl-py", "numpy", "protobuf")


def _declared() -> set[str]:
    requires = importlib.metadata.requires("tfcluster") or []
    return {
        Requirement(r).name.lower()
        for r in requires
        if "extra ==" not in r  # optional groups are not installed by default
    }


@pytest.mark.parametrize("package", PROGRAM_IMPORTS)
def test_tensorflow_1_15s_runtime_packages_are_tfclusters_dependencies(package: str) -> None:
    assert package in _declared()


def test_six_moves_gives_what_tf1_programs_import() -> None:
    from six.moves import urllib, xrange  # type: ignore[import-untyped]

    assert list(xrange(3)) == [0, 1, 2]
    assert urllib.request.urlopen is not None
