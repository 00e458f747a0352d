"""tf.test's Benchmark, benchmark_config, StubOutForTesting and test_src_dir_path behave as
TF 1.15's (recorded by tests/tf_reference/record_small_names.py from tftest_api_cases.py)."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.tftest_api_cases import benchmark_reports, stubout_story


def test_benchmark_reports_print_and_write_tf_entries(tmp_path: Any) -> None:
    assert benchmark_reports(tf, str(tmp_path)) == reference.case(
        "small_names", "benchmark_reports"
    )


def test_run_op_benchmark_times_the_op_and_reports_the_median(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class OpBench(tf.test.Benchmark):
        def benchmarkAdd(self) -> dict[str, Any]:
            with tf.Graph().as_default(), tf.Session() as sess:
                x = tf.placeholder(tf.float32, [3])
                return self.run_op_benchmark(
                    sess,
                    x + 1.0,
                    feed_dict={x: [1.0, 2.0, 3.0]},
                    min_iters=5,
                    mbs=2,
                    store_trace=True,
                )

    values = OpBench().benchmarkAdd()
    assert values["iters"] == 5 and values["wall_time"] > 0
    assert values["throughput"] == pytest.approx(2 / values["wall_time"])
    assert 'name: "OpBench.benchmarkAdd"' in capsys.readouterr().out
    assert '"traceEvents"' in values["extras"]["full_trace_chrome_format"]


def test_benchmark_config_turns_the_dependency_optimizer_off_as_tf() -> None:
    assert (
        tf.test.benchmark_config().SerializeToString()
        == (reference.case("small_names", "benchmark_config")["value"])
    )


def test_stubout_sets_and_restores_as_tf() -> None:
    assert stubout_story(tf) == reference.case("small_names", "stubout")["seen"]


def test_src_dir_path_joins_the_runfiles_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_SRCDIR", "/runfiles")
    assert (
        tf.test.test_src_dir_path("core/platform")
        == (reference.case("small_names", "test_src_dir_path")["value"])
    )
    monkeypatch.delenv("TEST_SRCDIR")
    recorded = reference.case("small_names", "test_src_dir_path_unset")["error"]
    with pytest.raises(KeyError):
        tf.test.test_src_dir_path("x")
    assert reference.error_class(recorded) == "KeyError"
