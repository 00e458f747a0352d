"""tf.test.TestCase: unittest.TestCase with TF1's sessions, seeds and array assertions.

Each test starts on a fresh default graph with the graph seed, Python's and numpy's seeds set
to TF's DEFAULT_GRAPH_SEED, so random ops give the same values every run.
session()/cached_session()/test_session() are graph-mode sessions on that graph, made the
default session; unless use_gpu, their ops are pinned to the CPU, as in TF.
"""

from __future__ import annotations

import collections.abc
import contextlib
import math
import os
import random
import re
import tempfile
import threading
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from absl.testing import absltest
from google.protobuf import message as proto_message
from google.protobuf import text_format

from tfcluster.client.session import BaseSession, Session
from tfcluster.framework import device_spec, errors
from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    reset_default_graph,
    set_random_seed,
)
from tfcluster.framework.versions import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER
from tfcluster.lib.platform import tf_logging
from tfcluster.lib.platform.function_deprecation import deprecated
from tfcluster.lib.testing import devices, googletest

DEFAULT_GRAPH_SEED = 87654321


def _is_graph_value(value: Any) -> bool:
    return isinstance(value, Tensor | Operation) or hasattr(value, "_as_graph_element")


class _CheckedThread:
    """A thread whose exception fails the test that joins it (TestCase.checkedThread)."""

    def __init__(
        self, testcase: unittest.TestCase, target: Callable[..., Any], args: Any, kwargs: Any
    ) -> None:
        self._testcase = testcase
        self._target = target
        self._args = args or ()
        self._kwargs = kwargs or {}
        self._exception: BaseException | None = None
        self._thread = threading.Thread(target=self._protected_run)
        self._is_thread_joined = False

    def _protected_run(self) -> None:
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # reported to the test on join()
            self._exception = e

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join()
        self._is_thread_joined = True
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def check_termination(self) -> None:
        if self._is_thread_joined:
            return
        if self.is_alive():
            raise RuntimeError("Thread was not joined. Did you forget to call join()?")
        self._testcase.fail("A checked thread was not joined.")


class CapturedWrites:
    """What captureWritesToStream caught: the file it was written to."""

    def __init__(self, capture_location: str) -> None:
        self.capture_location = capture_location

    def contents(self) -> str:
        with open(self.capture_location) as f:
            return f.read()


class TestCase(absltest.TestCase):
    """Base class for tests of TF1 programs (tf.test.TestCase). Like TF's, an absltest
    TestCase: absl's assertions (assertLen, assertSameStructure, ...) come with it."""

    def __init__(self, methodName: str = "runTest") -> None:
        super().__init__(methodName)
        self._threads: list[_CheckedThread] = []
        self._tempdir: str | None = None
        self._cached_session: BaseSession | None = None
        self._cached_graph: Graph | None = None

    def setUp(self) -> None:
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        reset_default_graph()
        set_random_seed(DEFAULT_GRAPH_SEED)
        # test_session is a context manager, not a test, whatever its name says to unittest.
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")

    def _callTestMethod(self, method: Any) -> None:
        """Runs one test method. A subclass whose setUp skips TF's has test_session run as a
        test: it only makes a context manager, and TF 1.15 (Python 3.7) reports it passed
        without a word; Python 3.11 would warn that a test returned a value."""
        if getattr(method, "__name__", None) == "test_session":
            method()
            return
        super()._callTestMethod(method)  # type: ignore[misc]

    def tearDown(self) -> None:
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()

    # ---- temporary files and threads ------------------------------------------------------

    def get_temp_dir(self) -> str:
        """A directory of this test's own (the same one for every call within the test)."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=googletest.get_temp_dir())
        return self._tempdir

    def checkedThread(
        self, target: Callable[..., Any], args: Any = None, kwargs: Any = None
    ) -> _CheckedThread:
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # ---- sessions -----------------------------------------------------------------------------

    def _clear_cached_session(self) -> None:
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
            self._cached_graph = None

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(
        self, sess: BaseSession, use_gpu: bool, force_gpu: bool
    ) -> Iterator[BaseSession]:
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                name = devices.gpu_device_name() or "/device:GPU:0"
                with sess.graph.device(name):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    @contextlib.contextmanager
    def session(
        self,
        graph: Graph | None = None,
        config: Any = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> Iterator[BaseSession]:
        """A new session on graph (the default graph if None), closed at the end."""
        with (
            Session(graph=graph, config=config) as sess,
            self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as constrained,
        ):
            yield constrained

    @contextlib.contextmanager
    def cached_session(
        self,
        graph: Graph | None = None,
        config: Any = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> Iterator[BaseSession]:
        """The test's one session (made on first use, closed when the test ends); asking for
        it with another graph is a ValueError."""
        sess = self._get_cached_session(graph, config, crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    @contextlib.contextmanager
    @deprecated(
        "TensorFlowTestCase.test_session",
        "tensorflow.python.framework.test_util",
        "Use `self.session()` or `self.cached_session()` instead.",
    )
    def test_session(
        self,
        graph: Graph | None = None,
        config: Any = None,
        use_gpu: bool = False,
        force_gpu: bool = False,
    ) -> Iterator[BaseSession]:
        """TF1's older name: the cached session without a graph, else a new session."""
        if graph is None:
            sess = self._get_cached_session(graph, config, crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def _get_cached_session(
        self, graph: Graph | None, config: Any, crash_if_inconsistent_args: bool
    ) -> BaseSession:
        if self._cached_session is None:
            self._cached_session = Session(graph=graph, config=config)
            self._cached_graph = graph
            return self._cached_session
        if crash_if_inconsistent_args and self._cached_graph is not graph:
            raise ValueError(
                "The graph used to get the cached session is different than the one that was "
                "used to create the session. Maybe create a new session with self.session()"
            )
        return self._cached_session

    def evaluate(self, tensors: Any) -> Any:
        """The values of tensors (any structure session.run takes), in the default session or
        the test's cached one."""
        sess = get_default_session()
        if sess is not None:
            return sess.run(tensors)
        with self.test_session() as cached:
            return cached.run(tensors)

    # ---- array assertions -----------------------------------------------------------------

    def _GetNdArray(self, a: Any) -> np.ndarray:
        if _is_graph_value(a):
            a = self.evaluate(a)
        if isinstance(a, np.ndarray):
            return a
        try:
            return np.array(a)
        except ValueError as e:  # a ragged nesting: compared element by element
            if "inhomogeneous shape" in str(e):
                return np.array(a, dtype=object)
            raise

    def _evaluate_if_both_tensors(self, a: Any, b: Any) -> tuple[Any, Any]:
        if _is_graph_value(a) and _is_graph_value(b):
            return tuple(self.evaluate((a, b)))  # type: ignore[return-value]
        return a, b

    def _assertArrayLikeAllClose(
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: Any = None
    ) -> None:
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            mismatch = f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."
        else:
            mismatch = f"Shape mismatch: expected {a.shape}, got {b.shape}."
        self.assertEqual(a.shape, b.shape, mismatch)
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        bad = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        x, y = (a[np.where(bad)], b[np.where(bad)]) if a.ndim else (a, b)
        details = [
            str(msg),
            f"not close where = {np.where(bad)}" if a.ndim else "",
            f"not close lhs = {x}",
            f"not close rhs = {y}",
            f"not close dif = {np.abs(x - y)}",
            f"not close tol = {atol + rtol * np.abs(y)}",
            f"dtype = {a.dtype}, shape = {a.shape}",
        ]
        np.testing.assert_allclose(
            a,
            b,
            rtol=rtol,
            atol=atol,
            err_msg="\n".join(d for d in details if d),
            equal_nan=True,
        )

    def _assertAllCloseRecursive(
        self, a: Any, b: Any, rtol: float, atol: float, path: list[str], msg: Any
    ) -> None:
        where = "".join(f"[{p}]" for p in path)
        msg = msg or ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        mismatch = f"Mismatched value: a{where} is different from b{where}. {msg}"
        if a_is_dict:
            self.assertCountEqual(
                a.keys(),
                b.keys(),
                msg=f"mismatched keys: a{where} has keys {a.keys()}, but b{where} has keys "
                f"{b.keys()}. {msg}",
            )
            for key in a:
                self._assertAllCloseRecursive(a[key], b[key], rtol, atol, [*path, key], msg)
        elif isinstance(a, list | tuple):
            try:
                a, b = self._evaluate_if_both_tensors(a, b)
                self._assertArrayLikeAllClose(
                    self._GetNdArray(a), self._GetNdArray(b), rtol, atol, msg=mismatch
                )
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(
                        f"Mismatched length: a{where} has {len(a)} items, but b{where} has "
                        f"{len(b)} items. {msg}"
                    ) from None
                for i, (a_item, b_item) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(a_item, b_item, rtol, atol, [*path, str(i)], msg)
        else:
            try:
                self._assertArrayLikeAllClose(a, b, rtol, atol, msg=mismatch)
            except TypeError as e:
                detail = f"Error: a{where} has {type(a)}, but b{where} has {type(b)}. {msg}"
                e.args = (f"{e.args[0]} : {detail}", *e.args[1:])
                raise

    def assertAllClose(
        self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: Any = None
    ) -> None:
        """a and b (arrays, Tensors, or dicts/lists/tuples/namedtuples of them) are equal to
        within atol + rtol * |b|, NaN equal to NaN."""
        self._assertAllCloseRecursive(a, b, rtol, atol, [], msg)

    def assertAllCloseAccordingToType(
        self,
        a: Any,
        b: Any,
        rtol: float = 1e-6,
        atol: float = 1e-6,
        float_rtol: float = 1e-6,
        float_atol: float = 1e-6,
        half_rtol: float = 1e-3,
        half_atol: float = 1e-3,
        bfloat16_rtol: float = 1e-2,
        bfloat16_atol: float = 1e-2,
        msg: Any = None,
    ) -> None:
        """assertAllClose with looser tolerances where either side is float32 or float16."""
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        del bfloat16_rtol, bfloat16_atol  # tfcluster has no bfloat16
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a: Any, b: Any, **kwargs: Any) -> None:
        """Fails when assertAllClose(a, b, **kwargs) (rtol, atol, msg) would pass."""
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {kwargs.get('msg') or ''}")

    def assertAllEqual(self, a: Any, b: Any, msg: Any = None) -> None:
        """a and b have the same shape and values (NaN equal to NaN for floats)."""
        msg = msg or ""
        a, b = self._evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        contents = f" Contents: {b!r}. \n{msg}." if b.ndim <= 3 or b.size < 500 else f" {msg}"
        self.assertEqual(
            a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}.{contents}"
        )
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        diff = np.logical_not(same)
        x, y = (a[np.where(diff)], b[np.where(diff)]) if a.ndim else (a, b)
        details = [msg, f"not equal lhs = {x!r}", f"not equal rhs = {y!r}"]
        if a.ndim:
            details.insert(1, f"not equal where = {np.where(diff)}")
        np.testing.assert_array_equal(a, b, err_msg="\n".join(details))

    def assertNotAllEqual(self, a: Any, b: Any, msg: Any = None) -> None:
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:
        a, comparison_target = self._evaluate_if_both_tensors(a, comparison_target)
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:
        a, comparison_target = self._evaluate_if_both_tensors(a, comparison_target)
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a: Any, comparison_target: Any) -> None:
        a, comparison_target = self._evaluate_if_both_tensors(a, comparison_target)
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a: Any, comparison_target: Any) -> None:
        a, comparison_target = self._evaluate_if_both_tensors(a, comparison_target)
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInRange(
        self,
        target: Any,
        lower_bound: Any,
        upper_bound: Any,
        open_lower_bound: bool = False,
        open_upper_bound: bool = False,
    ) -> None:
        """Every element lies in the range (NaN never does)."""
        target = self._GetNdArray(target)
        if not (
            np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)
        ):
            raise AssertionError(
                f"The value of {target} does not have an ordered numeric type, instead it has "
                f"type: {target.dtype}"
            )
        nans = np.where(np.isnan(target))
        if np.size(nans):
            raise AssertionError(
                f"{len(nans[0])} of the {np.size(target)} element(s) are NaN. Subscripts(s) "
                f"and value(s) of the NaN element(s):\n{_subscripts(nans, target)}"
            )
        below = np.less_equal if open_lower_bound else np.less
        above = np.greater_equal if open_upper_bound else np.greater
        outside = np.where(np.logical_or(below(target, lower_bound), above(target, upper_bound)))
        if np.size(outside):
            span = (
                ("(" if open_lower_bound else "[")
                + f"{lower_bound}, {upper_bound}"
                + (")" if open_upper_bound else "]")
            )
            raise AssertionError(
                f"{len(outside[0])} of the {np.size(target)} element(s) are outside the range "
                f"{span}. Subscript(s) and value(s) of the offending elements:\n"
                f"{_subscripts(outside, target)}"
            )

    def assertAllInSet(self, target: Any, expected_set: Any) -> None:
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(
                f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}"
            )

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertArrayNear(self, farray1: Any, farray2: Any, err: float, msg: Any = None) -> None:
        """Two lists of floats have the same length and are element-wise within err."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1: Any, ndarray2: Any, err: float, msg: Any = None) -> None:
        """The L2 norm of the difference of the two arrays is below err."""
        near = np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) < err
        self.assertTrue(near, msg=msg)

    def assertNear(self, f1: float, f2: float, err: float, msg: Any = None) -> None:
        self.assertTrue(
            f1 == f2 or math.fabs(f1 - f2) <= err,
            f"{f1:f} != {f2:f} +/- {err:f}{' (' + msg + ')' if msg is not None else ''}",
        )

    def assertShapeEqual(self, np_array: Any, tf_tensor: Any, msg: Any = None) -> None:
        """The numpy array's shape is the Tensor's static shape."""
        if not isinstance(np_array, np.ndarray | np.generic):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, Tensor):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertDeviceEqual(self, device1: Any, device2: Any, msg: Any = None) -> None:
        """The two device names (or DeviceSpecs) name the same device."""
        d1, d2 = _canonical_device(device1), _canonical_device(device2)
        self.assertEqual(d1, d2, f"Devices {d1} and {d2} are not equal. {msg}")

    def assertStartsWith(self, actual: Any, expected_start: Any, msg: Any = None) -> None:
        if not actual.startswith(expected_start):
            fail = f"Did not start with '{expected_start}': {actual!r}"
            self.fail(f"{msg} : {fail}" if msg else fail)

    def assertItemsEqual(self, first: Any, second: Any, msg: Any = None) -> None:
        """Python 2's name of assertCountEqual, which TF1 tests use."""
        self.assertCountEqual(first, second, msg)

    def assertRaisesRegexp(
        self, expected_exception: Any, expected_regex: Any, *args: Any, **kwargs: Any
    ) -> Any:
        """Python 2's name of assertRaisesRegex (gone from Python 3.12's unittest)."""
        return self.assertRaisesRegex(expected_exception, expected_regex, *args, **kwargs)

    def assertProtoEquals(
        self, expected_message_maybe_ascii: Any, message: Any, msg: Any = None
    ) -> None:
        """The proto equals the expected one, given as a message or as text format."""
        message_value = message  # TF's parameter name, over the protobuf module's
        if isinstance(expected_message_maybe_ascii, type(message_value)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, str | bytes):
            expected = type(message_value)()
            text = expected_message_maybe_ascii
            text_format.Merge(text.decode() if isinstance(text, bytes) else text, expected)
        else:
            raise AssertionError(
                f"Can't compare protos of type {type(expected_message_maybe_ascii)} and "
                f"{type(message_value)}."
            )
        assert isinstance(expected, proto_message.Message)
        self.assertEqual(
            text_format.MessageToString(expected),
            text_format.MessageToString(message_value),
            msg,
        )

    def assertProtoEqualsVersion(
        self,
        expected: Any,
        actual: Any,
        producer: int = GRAPH_DEF_VERSION,
        min_consumer: int = GRAPH_DEF_VERSION_MIN_CONSUMER,
        msg: Any = None,
    ) -> None:
        """A GraphDef equals the text `expected` with the given versions before it."""
        text = f"versions {{ producer: {producer} min_consumer: {min_consumer} }};\n{expected}"
        self.assertProtoEquals(text, actual, msg=msg)

    @contextlib.contextmanager
    def captureWritesToStream(self, stream: Any) -> Iterator[CapturedWrites]:
        """Everything written to stream's file descriptor in the block (C++ code's writes
        too), read back with .contents()."""
        stream.flush()
        fd = stream.fileno()
        handle, path = tempfile.mkstemp(dir=self.get_temp_dir())
        original = os.dup(fd)
        os.dup2(handle, fd)
        try:
            yield CapturedWrites(path)
        finally:
            os.close(handle)
            os.dup2(original, fd)
            os.close(original)

    # ---- expected errors --------------------------------------------------------------------

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(  # type: ignore[override]  # TF's replaces absl's so
        self, exception_type: Any, expected_err_re_or_predicate: Any
    ) -> Iterator[None]:
        """The block raises exception_type, and its message matches the regular expression
        (searched; an OpError's op name included) or the predicate returns true for it."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            pattern = expected_err_re_or_predicate

            def predicate(e: BaseException) -> Any:
                if isinstance(e, errors.OpError):
                    text = str(e.message)
                    if e.op is not None:
                        text += "\nCaused by: " + e.op.name
                else:
                    text = str(e)
                tf_logging.info("Searching within error strings: '%s' within '%s'", pattern, text)
                return re.search(pattern, text)

        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e

    def assertRaisesOpError(self, expected_err_re_or_predicate: Any) -> Any:
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


def _subscripts(where: tuple[np.ndarray, ...], value: np.ndarray, limit: int = 10) -> str:
    if np.ndim(value) == 0:
        return f"  [0] : {value}"
    rows = np.transpose(where)
    lines = [f"  {row} : {value[tuple(row)]}" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append("  ...")
    return "\n".join(lines)


def _canonical_device(device: Any) -> str:
    if isinstance(device, device_spec.DeviceSpec):
        return device.to_string()
    return device_spec.DeviceSpec.from_string(device or "").to_string()
