"""Helpers of the case modules that run twice, under TensorFlow 1.15 (record_*.py, Python 3.7)
and under tfcluster (the tests): run a graph, catch an error as plain data, capture what ops
print, record every case, and compare a tfcluster result with TensorFlow's; and plain-data
views of a graph (its ops with their inputs, variables' names, devices) for the losses and
metrics cases; and a program run as a script in a process of its own.

Kept runnable on Python 3.7 and free of anything but numpy (and pytest, in `same`).
"""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback

import numpy as np


def error(fn):
    """{"error": class name, "message": its first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 and isinstance(e.args[0], str) else str(e)
        if hasattr(e, "message") and isinstance(e.message, str):
            text = e.message
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def error_class(fn):
    """The class name of what fn raises, or None."""
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return None


def registrar(cases, own_graph=False, graph_seed=None):
    """The `@case` decorator of a case module: it registers a case function under its name in
    `cases`. With own_graph the case runs in a graph of its own (with graph-level seed
    graph_seed when given), so that its op names and seeds do not depend on the cases before it."""

    def case(fn):
        def in_own_graph(tf):
            with tf.Graph().as_default():
                if graph_seed is not None:
                    tf.set_random_seed(graph_seed)
                return fn(tf)

        cases[fn.__name__] = in_own_graph if own_graph else fn
        return fn

    return case


def free_ports(count):
    """`count` distinct free loopback ports (bound together, then released)."""
    socks = [socket.socket() for _ in range(count)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def plain(value):
    """Session results as plain data: a SparseTensorValue becomes a dict of its arrays."""
    if hasattr(value, "indices") and hasattr(value, "dense_shape") and hasattr(value, "values"):
        return {
            "indices": np.asarray(value.indices),
            "values": np.asarray(value.values),
            "dense_shape": np.asarray(value.dense_shape),
        }
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (int, float, bool, np.generic)):
        return np.asarray(value)
    return value


def run(tf, fetches, feed=None):
    with tf.Session() as sess:
        return plain(sess.run(fetches, feed))


def dataset_elements(tf, dataset, steps):
    """The first `steps` elements of a dataset (a one-shot iterator run in a session of its
    own), arrays as nested lists."""
    item = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        return [_as_lists(sess.run(item)) for _ in range(steps)]


def _as_lists(value):
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    return value.tolist()


def run_error(tf, fetches, feed=None):
    with tf.Session() as sess:
        return error(lambda: sess.run(fetches, feed))


class captured:
    """What is printed while it is open, to stdout and stderr, whether through Python's
    sys.stdout/sys.stderr (tfcluster) or the process's file descriptors 1 and 2 (TF's C++)."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self._files = {}
        self._saved = {}
        for fd in (1, 2):
            f = tempfile.TemporaryFile()
            self._files[fd] = f
            self._saved[fd] = os.dup(fd)
            os.dup2(f.fileno(), fd)
        self._py = (sys.stdout, sys.stderr)
        self._py_out, self._py_err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = self._py_out, self._py_err
        return self

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self._py
        sys.stdout.flush()
        sys.stderr.flush()
        texts = {}
        for fd in (1, 2):
            os.dup2(self._saved[fd], fd)
            os.close(self._saved[fd])
            f = self._files[fd]
            f.seek(0)
            texts[fd] = f.read().decode("utf-8", "replace")
            f.close()
        self.stdout = texts[1] + self._py_out.getvalue()
        self.stderr = texts[2] + self._py_err.getvalue()
        return False


class LoggedWarnings(logging.Handler):
    """Collects the messages logged at `level` (WARNING by default) and above (add it to TF's
    "tensorflow" logger, or use it as a context manager: added for the block, the logger's
    verbosity at `level` meanwhile, whatever an earlier program set with
    tf.logging.set_verbosity)."""

    def __init__(self, level=logging.WARNING):
        super().__init__(level)
        self.messages = []
        self._level = None

    def emit(self, record):
        self.messages.append(record.getMessage())

    def __enter__(self):
        logger = logging.getLogger("tensorflow")
        self._level = logger.level
        logger.setLevel(self.level)
        logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        logger = logging.getLogger("tensorflow")
        logger.removeHandler(self)
        logger.setLevel(self._level)
        return False


def printed_lines(text):
    """The lines an op printed, without TensorFlow's own log lines."""
    keep = []
    for line in text.splitlines():
        if line[:1] in ("W", "I", "E") and " tensorflow/" in line:
            continue
        if "deprecat" in line or line.startswith("Instructions for updating"):
            continue
        keep.append(line)
    return keep


def record_tf115(area, cases):
    """What a recorder script run under TensorFlow 1.15 does: refuses any other TensorFlow,
    then records every case into data/<area>.json."""
    import tensorflow as real_tf
    from recorder import Recorder

    if not real_tf.__version__.startswith("1."):
        script = os.path.basename(sys.argv[0])
        raise SystemExit(f"{script} records TensorFlow 1.15 (see its docstring)")
    record(Recorder(area), cases, real_tf.compat.v1)


def add_in_model_dirs(rec, cases, names, tf):
    """Adds each named case's result, run as `fn(tf, model_dir)` in a graph of its own with a
    temporary directory removed after it (the estimator recorders' cases)."""
    for name in names:
        model_dir = tempfile.mkdtemp()
        try:
            with tf.Graph().as_default():
                rec.add(name, **cases[name](tf, model_dir))
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)


def record(rec, cases, tf):
    """Runs every case under TensorFlow and adds its result (or why it could not run)."""
    for name, fn in sorted(cases.items()):
        try:
            result = fn(tf)
        except Exception as e:
            traceback.print_exc()
            rec.add(name, skipped=f"{type(e).__name__}: {e}")
            continue
        rec.add(name, **result)
    rec.save()


def same(got, want, path, rtol=1e-5, atol=1e-6):
    """got (tfcluster's) is want (TensorFlow's): same structure, keys, shapes, dtypes; floats
    to tolerance, everything else exactly."""
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            same(got[k], want[k], f"{path}.{k}", rtol, atol)
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]", rtol, atol)
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        if w.dtype != object:
            assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert abs(got - want) <= atol + rtol * abs(want), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


# ---- graph views (losses and metrics cases) ------------------------------------------
def error_of(fn):
    """{"error": class name, "message": its first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def ops_of(g, prefix=""):
    """[name, type, inputs] of the graph's ops (those under prefix), in creation order; the
    inputs are tensor names, then "^op" for each control input."""
    out = []
    for op in g.get_operations():
        if op.name.startswith(prefix):
            inputs = [t.name for t in op.inputs] + ["^" + c.name for c in op.control_inputs]
            out.append([op.name, op.type, inputs])
    return out


def names(values):
    return [v.name for v in values]


def devices_of(g):
    """op name -> device, for ops that have one."""
    return {op.name: op.device for op in g.get_operations() if op.device}


def run_script(code, name, args=()):
    """Runs `code` as the script `name`.py, in a fresh folder and a process of its own (the
    way a user starts a program), TF's C++ logging and Python's warnings off: the finished
    process (subprocess.CompletedProcess, text output)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, name + ".py")
        with open(script, "w") as f:
            f.write(code)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
        return subprocess.run(
            [sys.executable, script, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
            cwd=tmp,
        )


_CPP_LOG = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF]) (\S+)\] (.*)$")


def cpp_log_program(python, code, source, keep, env=None):
    """Runs `code` (`python -c`) with TF's C++ logging on and Python's warnings off, and
    gives the lines of its stderr that matter, in order: TF's C++ log lines from a source
    file whose path holds `source` (as "W <file>:<line> <text>", no timestamp), and the
    program's own lines for which keep(line) is true. A program that fails raises."""
    env = dict(os.environ if env is None else env, PYTHONWARNINGS="ignore")
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    out = subprocess.run([python, "-c", code], capture_output=True, env=env, timeout=120)
    stderr = out.stderr.decode(errors="replace")
    if out.returncode:
        raise RuntimeError(stderr[-2000:])
    lines = []
    for line in stderr.splitlines():
        m = _CPP_LOG.match(line)
        if m:
            if source in m.group(2):
                lines.append(" ".join(m.groups()))
        elif keep(line):
            lines.append(line)
    return lines
