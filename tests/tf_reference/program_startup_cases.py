"""What distributed TF1 programs print as they start (kubeflow's tf_smoke.py logs the version
dunders and the ServerDef it builds from TF_CONFIG): the build dunders of the module, and
str() of the cluster protos, whose map entries TF's printer writes in full (`key: 0`,
`value: ""`, `value: 0`).
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


def cluster_protos_printed(tf):
    """str() of a ClusterDef, a ServerDef and a ConfigProto whose maps hold default keys and
    values (task 0, an empty address, a device count of 0)."""
    cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": {0: "a:1", 3: ""}})
    server_def = tf.train.ServerDef(
        cluster=cluster.as_cluster_def(), protocol="grpc", job_name="worker", task_index=0
    )
    config = tf.ConfigProto(device_count={"GPU": 0, "CPU": 1})
    return {
        "cluster_def": str(cluster.as_cluster_def()),
        "server_def": str(server_def),
        "server_def_repr": repr(server_def),
        "config": f"{config}",
    }


CASES = {
    "version_dunders": version_dunders,
    "cluster_protos_printed": cluster_protos_printed,
}
