"""GPU case of TF1's dataflow control flow (Switch, Merge, Enter, Exit, NextIteration,
LoopCond, ControlTrigger and the Ref forms), added to gpu_op_cases.CASES: one TF1-style while
loop, built node by node as TF 1.x lays it out, carrying a variable's reference through."""

from __future__ import annotations

from typing import Any

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import Build, _case, _f32, _raw

_FRAME = "gpu_case_loop"


def _enter(x: Any, op: str = "Enter", constant: bool = False) -> Any:
    return _raw(op, [x], T=x.dtype.base_dtype, frame_name=_FRAME, is_constant=constant)[0]


def _merge(entered: Any, op: str = "Merge") -> Any:
    """A loop Merge reading its Enter; the NextIteration is joined by `_close`."""
    return _raw(op, [entered, entered], T=entered.dtype.base_dtype, N=2)[0]


def _close(merged: Any, value: Any, op: str = "NextIteration") -> None:
    following = _raw(op, [value], T=value.dtype.base_dtype)[0]
    merged.op._update_input(1, following)


@_case(
    "Switch",
    "RefSwitch",
    "Merge",
    "RefMerge",
    "Enter",
    "RefEnter",
    "Exit",
    "RefExit",
    "NextIteration",
    "RefNextIteration",
    "LoopCond",
    "ControlTrigger",
)
def _v1_loop() -> Build:
    """acc = 0; for i in range(3): acc += x * i + v  (v read through the loop's reference)."""
    x = _f32(3)
    v = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32), name="v")
    i = _merge(_enter(tf.constant(0)))
    acc = _merge(_enter(tf.zeros([3])))
    ref = _merge(_enter(v._variable, "RefEnter"), "RefMerge")
    # Values the body reads from outside come in as loop invariants, as in TF 1.x.
    x_in, limit = _enter(x, constant=True), _enter(tf.constant(3), constant=True)
    one = _enter(tf.constant(1), constant=True)
    go = _raw("LoopCond", [tf.less(i, limit)])[0]
    i_out, i_body = _raw("Switch", [i, go], T=tf.int32)
    acc_out, acc_body = _raw("Switch", [acc, go], T=tf.float32)
    ref_out, ref_body = _raw("RefSwitch", [ref, go], T=ref.dtype)
    step = acc_body + x_in * tf.cast(i_body, tf.float32) + tf.identity(ref_body)
    _close(i, i_body + one)
    _close(acc, step)
    _close(ref, ref_body, "RefNextIteration")
    total = _raw("Exit", [acc_out], T=tf.float32)[0]
    count = _raw("Exit", [i_out], T=tf.int32)[0]
    ref_exit = _raw("RefExit", [ref_out], T=ref.dtype)[0]
    trigger = _raw_op("ControlTrigger", [total])
    with tf.control_dependencies([trigger]):
        result = tf.identity(total)
    return Build([result, count, tf.identity(ref_exit)], before=[[v.initializer]])


def _raw_op(op: str, after: list[Any]) -> Any:
    with tf.control_dependencies(after):
        return tf.get_default_graph().create_op(op, [], {})
