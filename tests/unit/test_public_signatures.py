"""Every implemented public name of TF 1.15 (tf.raw_ops aside: test_raw_op_signatures.py) takes
TF's parameters: the same names, in the same positional order, of the same kinds, with equal
defaults (tests/tf_reference/data/public_signatures.json, recorded from TF 1.15 by
record_public_signatures.py). Functions, class constructors, and the public methods of TF's
classes (each TF method once, at the first implemented public class reaching it).

The differences not fixed yet are listed in public_signature_known.py, with what differs;
each entry fails once tfcluster matches, so the list only shrinks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from public_signature_check import (
    DATA,
    all_mismatches,
    checks,
    compare,
    encode_default,
    load,
    mismatch,
    params_of,
)
from public_signature_known import KNOWN_DIFFERENCES
from tfcluster.api import _unimplemented

CHECKS = {key: (tf_params, ours, member) for key, tf_params, ours, member in checks()}


def test_recording_is_tf_1_15s_and_covers_its_public_names() -> None:
    with DATA.open() as f:
        assert json.load(f)["tensorflow"] == "1.15.0"
    recorded = load()
    names = _unimplemented.tf_names()
    for module, members in names.items():
        if module.split(".")[0] == "raw_ops":
            continue
        for name in members:
            path = _unimplemented.public_path(module, name)
            assert path in recorded or any(
                m.startswith(f"{module}.{name}".lstrip(".")) for m in names
            ), path
    assert not any(key.startswith("tf.raw_ops.") for key in recorded)
    assert len(CHECKS) > 3000


@pytest.mark.parametrize("key", sorted(set(CHECKS) - set(KNOWN_DIFFERENCES)))
def test_signature_matches_tf(key: str) -> None:
    tf_params, ours, member = CHECKS[key]
    assert mismatch(tf_params, ours, member) is None


@pytest.mark.parametrize("key", sorted(KNOWN_DIFFERENCES))
def test_known_difference_still_differs(key: str) -> None:
    """Remove the entry from public_signature_known.py once this fails: the name matches."""
    assert key in CHECKS, f"{key} is no longer checked (unimplemented or renamed)"
    tf_params, ours, member = CHECKS[key]
    assert mismatch(tf_params, ours, member) is not None


def test_known_differences_are_the_only_ones() -> None:
    assert set(all_mismatches()) == set(KNOWN_DIFFERENCES)


def _tf_params(fn: Any) -> list[list[Any]]:
    got = params_of(fn)
    assert got is not None
    return got


def test_comparison_catches_order_names_defaults_and_extras() -> None:
    def tf_fn(a, b=1, name=None, **kwargs):  # type: ignore[no-untyped-def]
        del a, b, name, kwargs

    def swapped(b=1, a=None, name=None, **kwargs):  # type: ignore[no-untyped-def]
        del a, b, name, kwargs

    def other_default(a, b=2, name=None, **kwargs):  # type: ignore[no-untyped-def]
        del a, b, name, kwargs

    def extra_positional(a, b=1, name=None, c=0, **kwargs):  # type: ignore[no-untyped-def]
        del a, b, name, c, kwargs

    def extra_keyword_only(a, b=1, name=None, *, c=0, **kwargs):  # type: ignore[no-untyped-def]
        del a, b, name, c, kwargs

    def no_kwargs(a, b=1, name=None):  # type: ignore[no-untyped-def]
        del a, b, name

    reference = _tf_params(tf_fn)
    assert compare(reference, _tf_params(tf_fn)) is None
    assert "positional order" in (compare(reference, _tf_params(swapped)) or "")
    assert "b=" in (compare(reference, _tf_params(other_default)) or "")
    assert "extra c" in (compare(reference, _tf_params(extra_positional)) or "")
    assert compare(reference, _tf_params(extra_keyword_only)) is None
    assert "lacks **kwargs" in (compare(reference, _tf_params(no_kwargs)) or "")


def test_defaults_compare_by_value_with_lists_and_tuples_alike() -> None:
    def tf_fn(d=[1, 1]):  # type: ignore[no-untyped-def]  # noqa: B006
        del d

    def ours(d=(1, 1)):  # type: ignore[no-untyped-def]
        del d

    assert compare(_tf_params(tf_fn), _tf_params(ours)) is None
    assert encode_default(float("nan")) == {"float": "nan"}


def test_keras_layers_bind_positional_arguments_as_tf() -> None:
    import tfcluster as tf

    conv = tf.keras.layers.Conv2D(8, 3, 2, "same")
    assert (conv.strides, conv.padding) == ((2, 2), "same")
    dense = tf.keras.layers.Dense(4, None, False)
    assert dense.use_bias is False
    norm = tf.keras.layers.BatchNormalization(1, 0.5)
    assert (norm.axis, norm.momentum) in (((1,), 0.5), (1, 0.5), ([1], 0.5))
    with pytest.raises(TypeError):
        tf.keras.layers.Dense()  # units is required, as in TF
