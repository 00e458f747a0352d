"""tf.test programs (Benchmark, benchmark_config, StubOutForTesting) run on TF 1.15 by
record_small_names.py and on tfcluster by tests/unit/test_tf_test_api.py. Python 3.7 too."""

from __future__ import annotations

import contextlib
import io
import os
import types


def benchmark_reports(tf, report_dir):
    """What report_benchmark prints, and the bytes it writes under TEST_REPORT_FILE_PREFIX."""

    class MyBench(tf.test.Benchmark):
        def benchmarkThing(self):
            self.report_benchmark(
                iters=3,
                wall_time=0.5,
                extras={"a": 1.5, "b": "x"},
                metrics=[{"name": "m", "value": 2.0, "min_value": 1.0}],
            )

        def benchmarkNamed(self):
            self.report_benchmark(name="other/name", cpu_time=0.25, throughput=4.0)

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        MyBench().benchmarkThing()
        MyBench().benchmarkNamed()
    os.environ["TEST_REPORT_FILE_PREFIX"] = os.path.join(report_dir, "bench_")
    try:
        MyBench().benchmarkNamed()
        with open(os.path.join(report_dir, "bench_MyBench.other__name"), "rb") as f:
            written = f.read()
        try:
            MyBench().benchmarkNamed()
            again = "no error"
        except Exception as e:  # TF refuses to overwrite a report
            again = type(e).__name__
    finally:
        del os.environ["TEST_REPORT_FILE_PREFIX"]
    errors = []
    for bad in ({"extras": [1]}, {"metrics": {}}, {"metrics": [{"value": 1.0}]}):
        try:
            MyBench().report_benchmark(**bad)
            errors.append("no error")
        except Exception as e:
            errors.append(type(e).__name__)
    try:
        tf.test.Benchmark().report_benchmark(iters=1)
        outside = "no error"
    except Exception as e:
        outside = type(e).__name__
    return {
        "printed": printed.getvalue(),
        "written": written,
        "overwrite": again,
        "bad_arguments": errors,
        "outside_a_benchmark_method": outside,
    }


def stubout_story(tf):
    """Set/SmartSet on a module, a class and an instance, and what CleanUp restores."""
    module = types.ModuleType("m")
    module.f = lambda: "module f"

    class Base:
        def g(self):
            return "base g"

        @staticmethod
        def s():
            return "static s"

    class Child(Base):
        pass

    child, other = Child(), Child()
    seen = []
    stubs = tf.test.StubOutForTesting()
    stubs.Set(module, "f", lambda: "stub f")
    stubs.SmartSet(child, "g", lambda self: "stub g")
    stubs.Set(Base, "s", staticmethod(lambda: "stub s"))
    seen.append([module.f(), child.g(), other.g(), Base().g(), Base.s()])
    stubs.CleanUp()
    seen.append([module.f(), child.g(), other.g(), Base().g(), Base.s()])
    with tf.test.StubOutForTesting() as scoped:
        scoped.SmartSet(Child, "g", lambda self: "class stub")
        seen.append([child.g(), Base().g()])
    seen.append([child.g(), Base().g()])
    try:
        tf.test.StubOutForTesting().SmartSet(child, "missing", 1)
        seen.append("no error")
    except Exception as e:
        seen.append(type(e).__name__)
    return seen
