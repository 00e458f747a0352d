"""`tensorflow.core`: the protocol buffer modules of TF's tree, for TF1 programs that import
them directly (`from tensorflow.core.framework import graph_pb2`, `from
tensorflow.core.protobuf import rewriter_config_pb2`, `from tensorflow.core.example import
example_pb2`, ...). Each is the tfcluster module with the same messages and field numbers
(in package `tfcluster`, so real TensorFlow can be imported beside it)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence

# tensorflow.core.<package>.<module> -> the module holding those messages here.
_MODULES = {
    "framework": {
        "allocation_description_pb2": "tfcluster.protos.allocation_description_pb2",
        "attr_value_pb2": "tfcluster.protos.attr_value_pb2",
        "cost_graph_pb2": "tfcluster.protos.cost_graph_pb2",
        "device_attributes_pb2": "tfcluster.protos.device_attributes_pb2",
        "graph_pb2": "tfcluster.protos.graph_pb2",
        "node_def_pb2": "tfcluster.protos.node_def_pb2",
        "op_def_pb2": "tfcluster.protos.op_def_pb2",
        "step_stats_pb2": "tfcluster.protos.step_stats_pb2",
        "summary_pb2": "tfcluster.protos.summary_pb2",
        "tensor_description_pb2": "tfcluster.protos.tensor_description_pb2",
        "tensor_pb2": "tfcluster.protos.tensor_pb2",
        "tensor_shape_pb2": "tfcluster.protos.tensor_shape_pb2",
        "tensor_slice_pb2": "tfcluster.protos.tensor_slice_pb2",
        "types_pb2": "tfcluster.protos.types_pb2",
        "variable_pb2": "tfcluster.protos.variable_pb2",
    },
    "protobuf": {
        "cluster_pb2": "tfcluster.protos.cluster_pb2",
        "config_pb2": "tfcluster.protos.config_pb2",
        "debug_pb2": "tfcluster.protos.debug_pb2",
        "meta_graph_pb2": "tfcluster.protos.meta_graph_pb2",
        "queue_runner_pb2": "tfcluster.protos.queue_runner_pb2",
        # TF keeps RewriterConfig in its own file; here it sits in config.proto.
        "rewriter_config_pb2": "tfcluster.protos.config_pb2",
        "saved_model_pb2": "tfcluster.protos.saved_model_pb2",
        "saved_object_graph_pb2": "tfcluster.protos.saved_object_graph_pb2",
        "saver_pb2": "tfcluster.protos.saver_pb2",
        "struct_pb2": "tfcluster.protos.struct_pb2",
        "tensor_bundle_pb2": "tfcluster.protos.tensor_bundle_pb2",
        "tensorflow_server_pb2": "tfcluster.protos.tensorflow_server_pb2",
        "trace_events_pb2": "tfcluster.protos.trace_events_pb2",
        "trackable_object_graph_pb2": "tfcluster.protos.trackable_object_graph_pb2",
        "verifier_config_pb2": "tfcluster.protos.verifier_config_pb2",
    },
    "example": {
        "example_pb2": "tfcluster.protos.example_pb2",
        "feature_pb2": "tfcluster.protos.feature_pb2",
    },
    "util": {
        "event_pb2": "tfcluster.protos.event_pb2",
        "test_log_pb2": "tfcluster.protos.test_log_pb2",
    },
}


class _LazyPackage(types.ModuleType):
    """A package of tensorflow.core: its modules load when first asked for."""

    def __init__(self, name: str, modules: dict[str, str]) -> None:
        super().__init__(name)
        self.__path__: list[str] = []
        self._targets = modules

    def __getattr__(self, child: str) -> types.ModuleType:
        target = self.__dict__.get("_targets", {}).get(child)
        if target is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {child!r}")
        module = importlib.import_module(target)
        setattr(self, child, module)
        sys.modules[f"{self.__name__}.{child}"] = module
        return module

    def __dir__(self) -> list[str]:
        return sorted(self._targets)


class _ModuleFinder(importlib.abc.MetaPathFinder):
    """`import tfcluster.core.framework.graph_pb2` finds the aliased module."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        prefix = __name__ + "."
        if not fullname.startswith(prefix) or fullname.count(".") != 3:
            return None
        package_name, _, child = fullname.rpartition(".")
        package = sys.modules.get(package_name)
        if not isinstance(package, _LazyPackage) or child not in package._targets:
            return None
        getattr(package, child)  # puts the module in sys.modules under fullname
        return importlib.util.spec_from_loader(fullname, _AliasLoader())


class _AliasLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return sys.modules[spec.name]

    def exec_module(self, module: types.ModuleType) -> None:
        pass


for _package, _targets in _MODULES.items():
    _module = _LazyPackage(f"{__name__}.{_package}", _targets)
    sys.modules[_module.__name__] = _module
    globals()[_package] = _module

sys.meta_path.append(_ModuleFinder())
