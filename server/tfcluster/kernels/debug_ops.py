"""Kernels that look at values while a step runs: Print and PrintV2 (they print in the process
that runs them, a task server's own stderr/stdout included, as TF's do), Assert and
CheckNumerics (InvalidArgumentError with TF's messages)."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import numpy as np

from tfcluster.kernels.common import host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.tensor_format import summarize

_print_lock = threading.Lock()


def _write(stream: str, text: str) -> None:
    """Writes to the stream TF names: stderr, stdout, log(info|warning|error), file://path."""
    if stream.startswith("file://"):
        with open(stream[len("file://") :], "a", encoding="utf-8") as f:
            f.write(text)
        return
    if stream.startswith("log("):
        level = {"log(info)": logging.INFO, "log(warning)": logging.WARNING}.get(
            stream, logging.ERROR
        )
        logging.getLogger("tensorflow").log(level, text.rstrip("\n"))
        return
    out = sys.stdout if stream == "stdout" else sys.stderr
    with _print_lock:
        out.write(text)
        out.flush()


@kernel("Print", devices=CPU_ONLY)
def print_(node: Any, xp: Any) -> Any:
    message = str(node.attrs.get("message", ""))
    first_n = int(node.attrs.get("first_n", -1))
    count = int(node.attrs.get("summarize", 3))
    printed = [0]
    lock = threading.Lock()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        with lock:
            if first_n >= 0 and printed[0] >= first_n:
                return (ins[0],)
            printed[0] += 1
        text = message + "".join("[" + summarize(host_array(v), count) + "]" for v in ins[1:])
        _write("stderr", text + "\n")
        return (ins[0],)

    return compute


@kernel("PrintV2", devices=CPU_ONLY)
def print_v2(node: Any, xp: Any) -> Any:
    stream = str(node.attrs.get("output_stream", "stderr"))
    end = str(node.attrs.get("end", "\n"))
    if not (stream in ("stdout", "stderr") or stream.startswith(("log(", "file://"))):
        raise invalid(f"{stream} is not a valid output stream")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        value = np.asarray(ins[0], dtype=object)
        if value.ndim != 0:
            raise invalid(f"Input is expected to be scalar, but got {list(value.shape)}")
        raw = value[()]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        _write(stream, text + end)
        return ()

    return compute


@kernel("Assert", devices=CPU_ONLY)
def assert_(node: Any, xp: Any) -> Any:
    count = int(node.attrs.get("summarize", 3))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        cond = np.asarray(ins[0])
        if cond.shape != ():
            raise invalid(f"In[0] should be a scalar: {list(cond.shape)}")
        if bool(cond):
            return ()
        parts = ["[" + summarize(host_array(v), count) + "]" for v in ins[1:]]
        raise invalid("assertion failed: " + " ".join(parts))

    return compute


@kernel("CheckNumerics")
def check_numerics(node: Any, xp: Any) -> Any:
    message = str(node.attrs.get("message", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        has_nan = bool(xp.isnan(x).any())
        has_inf = bool(xp.isinf(x).any())
        if has_nan or has_inf:
            what = "Inf and NaN" if has_nan and has_inf else "NaN" if has_nan else "Inf"
            raise invalid(f"{message} : Tensor had {what} values")
        return (x,)

    return compute
