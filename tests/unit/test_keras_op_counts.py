"""tf.keras's compile, first fit, evaluate and predict build TF 1.15's ops, in its order and
under its names (metrics' total/count variables and updates, the weighted loss's
broadcast_weights and DivNoNan, the learning phase, the metrics' reset assignments), so the
op count after each stage is TF's and a random op made after it draws TF's numbers (its op
seed is that count). Recorded under TF 1.15: tests/tf_reference/record_keras_op_counts.py.
"""

import re

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_op_count_cases import _RECURRENT_CASES, CASES


@pytest.fixture(scope="module")
def results() -> dict:
    return {}


def _run(name: str, results: dict) -> tuple[dict, dict]:
    if name not in results:
        results[name] = CASES[name](tf)
    return results[name], reference.case("keras_op_counts", name)


# Cases with a tf.cond / tf.case (a schedule's): TF 1.15 builds v1 conds (Switch/Merge in
# the graph) where tfcluster builds one functional If, so their ops are compared outside
# the conds; the op counts (the If counts what TF's frame holds) are compared whole.
_V1_CONDS = {
    "keras_rmsprop_polynomial_decay_cycle",
    "keras_sgd_momentum_piecewise_constant",
    "train_piecewise_constant_then_draw",
}


def _outside_conds(ops: list) -> list[tuple[str, str]]:
    def in_cond(name: str) -> bool:
        return any(
            part == "AssertGuard" or part == "cond" or part.startswith("cond_")
            for part in name.split("/")
        )

    return [tuple(op) for op in ops if not in_cond(op[0])]


# Cases with a Keras RNN layer: TF 1.15's K.rnn builds a v1 while_loop (its frame's ops in
# the graph, `simple_rnn/while/...`) where tfcluster builds one functional While
# (`simple_rnn/while`), so their ops are compared outside the loop; the op counts (the While
# counts what TF's frame holds) are compared whole.
_V1_WHILES = {fn.__name__ for fn in _RECURRENT_CASES}

# A loop's gradient (fit's): TF 1.15 builds a second v1 loop, its counters at the top of the
# gradients scope (f_count, b_count, ...) and the sums of the gradients inside it there too
# (AddN); tfcluster builds one functional While in `<loop>_grad`.
_LOOP_GRADIENT_TOP = re.compile(
    r"(^|/)gradients/(f_count|b_count|Merge|Switch|Add|NextIteration|GreaterEqual|Sub|AddN)"
    r"(_\d+)?(/y|/Enter)?$"
)


# Stages whose ops outside the loops are TF's in another order, and why.
_OTHER_ORDER = {
    # TF 1.15 makes the zeros of the forward loop's unused Exits as soon as its outputs'
    # gradient reaches the first Exit; tfcluster when the whole While op is differentiated,
    # after the backward layer's transpose gradient that was queued first.
    ("bidirectional_lstm_sequences", "fit"): "the forward loop's exit zeros come later",
}


def _outside_whiles(ops: list) -> list[tuple[str, str]]:
    def in_loop(name: str, op_type: str) -> bool:
        scopes = name.split("/")[:-1]
        return (
            op_type == "While"
            or "while" in scopes
            or "while_grad" in scopes
            or _LOOP_GRADIENT_TOP.search(name) is not None
        )

    return [tuple(op) for op in ops if not in_loop(op[0], op[1])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_stage_builds_tf_ops_in_tf_order(name: str, results: dict) -> None:
    actual, expected = _run(name, results)
    assert actual["stages"] == expected["stages"]
    for stage, got, want in zip(expected["stages"], actual["ops"], expected["ops"]):
        if name in _V1_CONDS:
            assert _outside_conds(got) == _outside_conds(want), stage
        elif name in _V1_WHILES:
            ours, tfs = _outside_whiles(_outside_conds(got)), _outside_whiles(_outside_conds(want))
            if (name, stage) in _OTHER_ORDER:
                ours, tfs = sorted(ours), sorted(tfs)
            assert ours == tfs, stage
            tf_loop = any("while" in op[0].split("/")[:-1] for op in want)
            assert any(op[1] == "While" for op in got) == tf_loop, stage
        else:
            assert [tuple(op) for op in got] == [tuple(op) for op in want], stage
    assert actual["counts"] == expected["counts"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_draws_and_training_results_are_tfs(name: str, results: dict) -> None:
    actual, expected = _run(name, results)
    for key in ("after_compile", "after_all", "after_fit", "dropout", "predict", "values"):
        assert (key in actual) == (key in expected), key
        if key in expected:
            reference.assert_close(actual[key], expected[key])
    for key in ("history", "evaluate", "metrics_names"):
        if key in expected:
            reference.assert_nested_close(actual[key], expected[key])
