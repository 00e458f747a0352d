"""How a ClusterSpec prints: str() is "ClusterSpec({...})" with its jobs sorted, and repr() is
Python's default for an object (no __repr__ of its own), which is what a RunConfig's "Using
config" log line and any dict of it show. Runs under Python 3.7 (TF 1.15) too."""

from __future__ import annotations

import re
from typing import Any

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES: dict = {}
case = registrar(CASES)

# The default repr without its module path and address (the library's own).
_DEFAULT_REPR = re.compile(r"^<[\w.]+\.(\w+) object at 0x[0-9a-fA-F]+>$")


def _printed(spec: Any) -> dict[str, Any]:
    match = _DEFAULT_REPR.match(repr(spec))
    return {
        "str": str(spec),
        "repr": match.group(1) + " object" if match else repr(spec),
        "in_a_dict": _DEFAULT_REPR.sub(r"\1 object", repr({"_cluster_spec": spec})[18:-1]),
    }


@case
def empty_cluster_spec(tf: Any) -> dict[str, Any]:
    return _printed(tf.train.ClusterSpec({}))


@case
def cluster_spec_of_jobs(tf: Any) -> dict[str, Any]:
    return _printed(tf.train.ClusterSpec({"worker": ["w0:1", "w1:1"], "ps": ["p0:1"]}))


@case
def sparse_cluster_spec(tf: Any) -> dict[str, Any]:
    return _printed(tf.train.ClusterSpec({"worker": {1: "w1:1", 3: "w3:1"}}))


@case
def run_config_default_cluster_spec(tf: Any) -> dict[str, Any]:
    return _printed(tf.estimator.RunConfig().cluster_spec)
