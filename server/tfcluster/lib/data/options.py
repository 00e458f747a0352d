"""tf.data.Options and its experimental groups (threading, optimization, stats, distribute).

They are kept with the dataset and merged as TF merges them (a value set later wins). They
tune TensorFlow's own graph rewrites and thread pools; tfcluster's pipeline has none of
those, so apart from `experimental_deterministic` they change nothing in how it runs.
"""

from __future__ import annotations

from typing import Any, ClassVar


class OptionsBase:
    """Attributes fixed by the class (an unknown one is an error), None until set."""

    _fields: ClassVar[dict[str, tuple[Any, str]]] = {}  # name -> (type or types, doc)

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name: str) -> Any:
        fields = type(self)._fields
        if name in fields:
            return self.__dict__["_values"].get(name, _default(fields[name][0]))
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        fields = type(self)._fields
        if name not in fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = fields[name][0]
        if value is not None and not isinstance(value, _types(kind)):
            raise TypeError(
                f'Property "{name}" must be of type {kind}, got: {value!r} '
                f"(type: {type(value).__name__})."
            )
        self.__dict__["_values"][name] = value

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._values == other._values  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return id(self)

    def _merged(self, other: OptionsBase) -> OptionsBase:
        out = type(self)()
        for name in type(self)._fields:
            mine = self.__dict__["_values"].get(name)
            theirs = other.__dict__["_values"].get(name)
            if isinstance(mine, OptionsBase) and isinstance(theirs, OptionsBase):
                value: Any = mine._merged(theirs)
            else:
                value = theirs if theirs is not None else mine
            if value is not None:
                out.__dict__["_values"][name] = value
        return out


def _types(kind: Any) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _default(kind: Any) -> Any:
    """Groups of options exist from the start (so `options.experimental_threading.x = 1`
    works); plain values are None."""
    return None


class ThreadingOptions(OptionsBase):
    """Threading options of a dataset."""

    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        "max_intra_op_parallelism": (int, "the maximum degree of intra-op parallelism"),
        "private_threadpool_size": (int, "the number of threads of a private pool"),
    }


class MapVectorizationOptions(OptionsBase):
    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        "enabled": (bool, "whether to vectorize map transformations"),
        "use_choose_fastest": (bool, "whether to pick the faster of both"),
    }


class OptimizationOptions(OptionsBase):
    """Which static optimizations TensorFlow applies to the dataset's graph."""

    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        name: (kind, name)
        for name, kind in {
            "apply_default_optimizations": bool,
            "autotune": bool,
            "autotune_buffers": bool,
            "autotune_cpu_budget": int,
            "filter_fusion": bool,
            "filter_with_random_uniform_fusion": bool,
            "hoist_random_uniform": bool,
            "map_and_batch_fusion": bool,
            "map_and_filter_fusion": bool,
            "map_fusion": bool,
            "map_parallelization": bool,
            "map_vectorization": MapVectorizationOptions,
            "noop_elimination": bool,
            "parallel_batch": bool,
            "shuffle_and_repeat_fusion": bool,
        }.items()
    }


class StatsOptions(OptionsBase):
    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        "aggregator": (object, "a StatsAggregator"),
        "counter_prefix": (str, "prefix of the counters"),
        "latency_all_edges": (bool, "whether to record latencies"),
        "prefix": (str, "prefix of the statistics"),
    }


class DistributeOptions(OptionsBase):
    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        "auto_shard": (bool, "whether to shard the dataset across workers"),
        "num_devices": (int, "the number of devices"),
    }


_GROUPS = {
    "experimental_distribute": DistributeOptions,
    "experimental_optimization": OptimizationOptions,
    "experimental_stats": StatsOptions,
    "experimental_threading": ThreadingOptions,
}


class Options(OptionsBase):
    """Represents options for tf.data.Dataset."""

    _fields: ClassVar[dict[str, tuple[Any, str]]] = {
        "experimental_deterministic": (bool, "whether elements keep their order"),
        "experimental_slack": (bool, "whether to add slack to prefetching"),
        **{name: (cls, name) for name, cls in _GROUPS.items()},
    }

    def __init__(self) -> None:
        super().__init__()
        for name, cls in _GROUPS.items():
            self.__dict__["_values"][name] = cls()

    def merge(self, options: Options) -> Options:
        """These options with `options` merged in (its values win where both are set)."""
        if not isinstance(options, Options):
            raise TypeError(f"options must be a tf.data.Options, got {type(options).__name__}")
        merged = self._merged(options)
        assert isinstance(merged, Options)
        return merged
