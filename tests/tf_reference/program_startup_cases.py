"""What distributed TF1 programs print as they start (kubeflow's tf_smoke.py logs the version
dunders and the ServerDef it builds from TF_CONFIG): the build dunders of the module.
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_program_startup.py and on tfcluster
by tests/unit/test_program_startup_prints.py. Python 3.7 code."""

from __future__ import annotations

# tf.__git_version__ and tf.__compiler_version__ name the build, so only their type is kept.
_BUILD_NAMES = ("__version__", "__git_version__", "__compiler_version__")
_FLAG_NAMES = ("__cxx11_abi_flag__", "__monolithic_build__")


def version_dunders(tf):
    """The build dunders a program may log beside tf.__version__."""
    return {
        "types": {name: type(getattr(tf, name)).__name__ for name in _BUILD_NAMES + _FLAG_NAMES},
        "version": tf.__version__,
        "git_version_prefix": tf.__git_version__[: len("v1.15.0")],
        "flags": {name: getattr(tf, name) for name in _FLAG_NAMES},
    }


CASES = {
    "version_dunders": version_dunders,
}
