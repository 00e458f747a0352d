"""tf.train.ExponentialMovingAverage, the cosine learning-rate schedules,
tf.train.warm_start/VocabInfo and tf.train.Checkpoint/CheckpointManager against TensorFlow
1.15: every program of tf_reference/train_extras_cases.py runs on tfcluster and must give what
TF 1.15 gave (shadow variable names, devices and colocation, values after each update with and
without num_updates/zero_debias, schedules at many steps, warm-started values, object-based
checkpoint files byte for byte, restored values, error classes), on the checkpoints and
vocabularies TF 1.15 wrote under tf_reference/data/train_extras/."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.train_extras_cases import CASES

# Parts of a case's result that are not compared, and why.
NOT_COMPARED: dict[str, dict[str, str]] = {
    # TF 1.15 computes the restart inside a tf.cond of Switch/Merge ops; tfcluster's cond is
    # one functional If node (same values, output names compared).
    "cosine_decay_restarts_values": {"ops": "a functional cond"},
    "older_schedules_values": {"ops": "polynomial_decay(cycle=True)'s functional cond"},
    "piecewise_constant_values": {
        "ops": "TF builds a tf.case of Switch/Merge; tfcluster selects",
        "names": "the output is TF's case/cond/Merge, a Select here",
    },
}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        if set(want) == {"error", "message"}:
            assert got.get("error") == want["error"], f"{path}: {got} != TF's {want}"
            return
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-6), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf)))


def test_schedule_graphs_without_a_cond_are_tensorflows_op_for_op() -> None:
    """The older schedules' graphs are TF 1.15's, but polynomial_decay(cycle=True)'s cond."""
    want = reference.case("train_extras", "older_schedules_values")["ops"]
    got = _run("older_schedules_values")["ops"]

    def in_cond(op: list[str]) -> bool:
        return op[0] == "PolynomialDecay_1/cond" or op[0].startswith("PolynomialDecay_1/cond/")

    # tfcluster's cond is a StatelessIf and an Identity named as TF's Merge (its result).
    assert [op for op in got if in_cond(op)] == [
        ["PolynomialDecay_1/cond", "StatelessIf"],
        ["PolynomialDecay_1/cond/Merge", "Identity"],
    ]
    assert ["PolynomialDecay_1/cond/Merge", "Merge"] in want
    assert [op for op in got if not in_cond(op)] == [op for op in want if not in_cond(op)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("train_extras", name)
    assert "skipped" not in want, want.get("skipped")
    got = _run(name)
    for key in NOT_COMPARED.get(name, {}):
        got.pop(key, None)
        want = {k: v for k, v in want.items() if k != key}
    _same(got, want, name)


# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15):
TF2_DIFFERS = {
    # 2.x writes an object checkpoint as one data shard; 1.15 one per device (the save
    # counter and object graph on the CPU apart from the variables).
    "object_checkpoint_files": "one data shard in 2.x",
    "checkpoint_manager_keeps_the_newest": "one data shard in 2.x",
    # 2.x wraps a list attribute as a trackable ListWrapper; 1.15 refuses it.
    "checkpoint_errors": "a list is trackable in 2.x",
    # 2.x's `+` of two tensors is AddV2 where 1.15 makes Add.
    "noisy_linear_cosine_decay_without_noise": "AddV2 in 2.x",
}


@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in TF2_DIFFERS))
def test_case_gives_what_tensorflow_2_compat_v1_gives(name: str) -> None:
    want = reference.case("train_extras_tf2", name)
    got = _run(name)
    for key in NOT_COMPARED.get(name, {}):
        got.pop(key, None)
        want = {k: v for k, v in want.items() if k != key}
    _same(got, want, name)


def test_error_messages_are_tensorflows() -> None:
    """Where TF's message is stable (no paths or reprs), tfcluster's is the same."""
    want = reference.case("train_extras", "warm_start_errors")
    got = _run("warm_start_errors")
    for key in ("bad_axis", "bad_type", "unused_prev_name", "unused_vocab_info"):
        assert got[key]["message"] == want[key]["message"], key
    want = reference.case("train_extras", "remapping_ops_values_and_errors")["errors"]
    got = _run("remapping_ops_values_and_errors")["errors"]
    for key in ("init_count", "too_many", "rows", "name"):
        assert got[key]["message"] == want[key]["message"], key


def test_ema_training_matches_what_tensorflow_saved() -> None:
    """The EMA run that wrote the checkpoint, repeated here, ends at TF's values."""
    from tf_reference.train_extras_cases import _train_with_ema

    want = reference.case("train_extras", "ema_checkpoint_written")
    _same(decode(encode(_train_with_ema(tf, save=False))), want, "ema_checkpoint_written")


def test_estimator_warm_starts_through_a_vocab_info(tmp_path: Any) -> None:
    """tf.estimator.WarmStartSettings with a tf.estimator.VocabInfo: the model's embedding
    starts as TF 1.15's warm_start made it (rows moved to the new vocabulary, zeros for new
    words and OOV rows); a zero learning rate keeps it through one step."""
    from tf_reference.train_extras_cases import NEW_VOCAB, WARM_CKPT, _vocab

    def model_fn(features: Any, labels: Any, mode: Any) -> Any:
        emb = tf.get_variable("emb", [len(NEW_VOCAB) + 2, 2])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, features["ids"]))
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.0).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    info = tf.estimator.VocabInfo(
        _vocab("new_vocab.txt"), len(NEW_VOCAB), 2, _vocab("old_vocab.txt")
    )
    settings = tf.estimator.WarmStartSettings(
        WARM_CKPT, vars_to_warm_start=None, var_name_to_vocab_info={"emb": info}
    )
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), warm_start_from=settings)
    ids = np.array([[0], [1]], dtype=np.int64)
    est.train(lambda: ({"ids": tf.constant(ids)}, None), steps=1)
    want = reference.case("train_extras", "warm_start_list_of_names_and_of_variables")
    reference.assert_close(est.get_variable_value("emb"), want["vocab_only"]["emb:0"])
