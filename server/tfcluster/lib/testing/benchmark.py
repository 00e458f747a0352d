"""tf.test.Benchmark, tf.test.benchmark_config and tf.test.test_src_dir_path as TF 1.15:
report_benchmark prints a BenchmarkEntries proto (TF's test_log.proto, text format) or,
when TEST_REPORT_FILE_PREFIX is set, writes it serialized to <prefix><name with / as __>."""

from __future__ import annotations

import inspect
import numbers
import os
import time
from typing import Any

from google.protobuf import text_encoding

from tfcluster.lib.platform import tf_logging as logging
from tfcluster.protos import config_pb2, test_log_pb2
from tfcluster.settings import environment

GLOBAL_BENCHMARK_REGISTRY: set[type] = set()


def _global_report_benchmark(
    name: str,
    iters: int | None = None,
    cpu_time: float | None = None,
    wall_time: float | None = None,
    throughput: float | None = None,
    extras: Any = None,
    metrics: Any = None,
) -> None:
    logging.info(
        "Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, "
        "metrics: %s",
        name,
        iters if iters is not None else -1,
        wall_time if wall_time is not None else -1,
        cpu_time if cpu_time is not None else -1,
        throughput if throughput is not None else -1,
        str(extras) if extras else "None",
        str(metrics) if metrics else "None",
    )
    entries = test_log_pb2.BenchmarkEntries()
    entry = entries.entry.add()
    entry.name = name
    if iters is not None:
        entry.iters = iters
    if cpu_time is not None:
        entry.cpu_time = cpu_time
    if wall_time is not None:
        entry.wall_time = wall_time
    if throughput is not None:
        entry.throughput = throughput
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for k, v in extras.items():
            if isinstance(v, numbers.Number):
                entry.extras[k].double_value = v  # type: ignore[assignment]
            else:
                entry.extras[k].string_value = str(v)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
            metric_entry = entry.metrics.add()
            metric_entry.name = metric["name"]
            metric_entry.value = metric["value"]
            if "min_value" in metric:
                metric_entry.min_value.value = metric["min_value"]
            if "max_value" in metric:
                metric_entry.max_value.value = metric["max_value"]
    prefix = environment.test_report_file_prefix()
    if prefix is None:
        print(entries_text(entries))
        return
    from tfcluster.lib.io import gfile

    output_path = prefix + name.replace("/", "__")
    if gfile.Exists(output_path):
        raise OSError(f"File already exists: {output_path}")
    with gfile.GFile(output_path, "wb") as out:
        out.write(entries.SerializeToString())


def entries_text(entries: Any) -> str:
    """str() of a BenchmarkEntries as TF 1.15's protobuf prints it: fields by number, map
    keys sorted, doubles as Python's repr ("4.0"); today's protobuf prints "4" and maps in
    hash order, so the few fields are written here."""
    lines: list[str] = []

    def put(depth: int, text: str) -> None:
        lines.append("  " * depth + text)

    def quoted(text: str) -> str:
        return '"' + text_encoding.CEscape(text.encode("utf-8"), False) + '"'

    for entry in entries.entry:
        put(0, "entry {")
        if entry.name:
            put(1, f"name: {quoted(entry.name)}")
        for field in ("iters", "cpu_time", "wall_time", "throughput"):
            value = getattr(entry, field)
            if value:
                put(1, f"{field}: {value!r}")
        for key in sorted(entry.extras):
            extra = entry.extras[key]
            put(1, "extras {")
            put(2, f"key: {quoted(key)}")
            put(2, "value {")
            kind = extra.WhichOneof("kind")
            if kind == "double_value":
                put(3, f"double_value: {extra.double_value!r}")
            elif kind == "string_value":
                put(3, f"string_value: {quoted(extra.string_value)}")
            put(2, "}")
            put(1, "}")
        for metric in entry.metrics:
            put(1, "metrics {")
            if metric.name:
                put(2, f"name: {quoted(metric.name)}")
            if metric.value:
                put(2, f"value: {metric.value!r}")
            for bound in ("min_value", "max_value"):
                if metric.HasField(bound):
                    put(2, bound + " {")
                    if getattr(metric, bound).value:
                        put(3, f"value: {getattr(metric, bound).value!r}")
                    put(2, "}")
            put(1, "}")
        put(0, "}")
    return "".join(line + "\n" for line in lines)


class _BenchmarkRegistrar(type):
    """Registers every concrete Benchmark subclass, as TF does."""

    def __new__(mcs, clsname: str, bases: Any, attrs: Any) -> Any:
        newclass = super().__new__(mcs, clsname, bases, attrs)
        if not newclass.is_abstract():  # type: ignore[attr-defined]
            GLOBAL_BENCHMARK_REGISTRY.add(newclass)
        return newclass


class _BenchmarkBase(metaclass=_BenchmarkRegistrar):
    @classmethod
    def is_abstract(cls) -> bool:
        return len(cls.mro()) <= 2

    def _get_name(self, overwrite_name: str | None = None) -> str:
        """ClassName.method of the outermost benchmark method on the stack."""
        calling_class = None
        name = None
        for frame in inspect.stack()[::-1]:
            f_self = frame[0].f_locals.get("self", None)
            if isinstance(f_self, _BenchmarkBase):
                calling_class, name = f_self, frame[3]
                break
        if calling_class is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        return f"{type(calling_class).__name__}.{overwrite_name or name}"

    def report_benchmark(
        self,
        iters: int | None = None,
        cpu_time: float | None = None,
        wall_time: float | None = None,
        throughput: float | None = None,
        extras: Any = None,
        name: str | None = None,
        metrics: Any = None,
    ) -> None:
        _global_report_benchmark(
            name=self._get_name(overwrite_name=name),
            iters=iters,
            cpu_time=cpu_time,
            wall_time=wall_time,
            throughput=throughput,
            extras=extras,
            metrics=metrics,
        )


class TensorFlowBenchmark(_BenchmarkBase):
    """tf.test.Benchmark (TF names the class TensorFlowBenchmark, as here): report_benchmark,
    run_op_benchmark and evaluate. Subclasses are registered in GLOBAL_BENCHMARK_REGISTRY."""

    @classmethod
    def is_abstract(cls) -> bool:
        return len(cls.mro()) <= 3

    def run_op_benchmark(
        self,
        sess: Any,
        op_or_tensor: Any,
        feed_dict: Any = None,
        burn_iters: int = 2,
        min_iters: int = 10,
        store_trace: bool = False,
        store_memory_usage: bool = True,
        name: str | None = None,
        extras: Any = None,
        mbs: int = 0,
    ) -> dict[str, Any]:
        """Runs op_or_tensor burn_iters then min_iters times and reports the median wall
        time; store_trace / store_memory_usage run one more traced step and add its Chrome
        trace / allocator maximums, as TF."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}
        unreported: dict[str, Any] = {}
        if store_trace or store_memory_usage:
            from tfcluster.client import timeline

            run_options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            run_metadata = config_pb2.RunMetadata()
            sess.run(
                op_or_tensor, feed_dict=feed_dict, options=run_options, run_metadata=run_metadata
            )
            tl = timeline.Timeline(run_metadata.step_stats)
            if store_trace:
                unreported["full_trace_chrome_format"] = tl.generate_chrome_trace_format()
            if store_memory_usage:
                analysis = tl.analyze_step_stats(show_memory=True)
                for k, v in analysis.allocator_maximums.items():
                    extras[f"allocator_maximum_num_bytes_{k}"] = v.num_bytes
        median = _median(deltas)
        values: dict[str, Any] = {
            "iters": min_iters,
            "wall_time": median,
            "extras": extras,
            "name": name,
            "throughput": mbs / median,
        }
        self.report_benchmark(**values)
        values["extras"].update(unreported)
        return values

    def evaluate(self, tensors: Any) -> Any:
        from tfcluster.framework.default_session import get_default_session

        sess = get_default_session()
        if sess is None:
            from tfcluster.client.session import Session

            sess = Session()
        return sess.run(tensors)


Benchmark = TensorFlowBenchmark


def _median(x: list[float]) -> float:
    if not x:
        return -1
    s = sorted(x)
    return (s[len(x) // 2] + s[(len(x) - 1) // 2]) / 2.0


def benchmark_config() -> Any:
    """A ConfigProto with grappler's dependency optimizer OFF, as TF's (tfcluster has no
    grappler: the setting is carried and has nothing to turn off)."""
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = config_pb2.RewriterConfig.OFF
    return config


def test_src_dir_path(relative_path: str) -> str:
    """$TEST_SRCDIR/org_tensorflow/tensorflow/<relative_path>, as TF (KeyError unset)."""
    return os.path.join(environment.test_srcdir(), "org_tensorflow/tensorflow", relative_path)
