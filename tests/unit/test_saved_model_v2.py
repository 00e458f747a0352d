"""tf.saved_model.save and tf.saved_model.load_v2 in graph mode, against TF 1.15 both ways
(tests/tf_reference/record_saved_model_v2.py): SavedModels TF 1.15 wrote load in tfcluster
with load_v2 and loader.load and give TF's values; what tfcluster saves gives, in tfcluster,
the values TF 1.15 got when it loaded tfcluster's saves of the same programs
(data/saved_model_v2/tfcluster_*, written by write_saved_model_v2_samples.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference import saved_model_v2_cases as cases

_DATA = os.path.join(reference.DATA_DIR, "saved_model_v2")
_AREA = "saved_model_v2"


_PROGRAMS = cases.PROGRAMS


@pytest.mark.parametrize(("kind", "run"), [(k, r) for k, _, r in _PROGRAMS])
def test_a_saved_model_tf_saved_loads_with_load_v2_and_loader_giving_tfs_results(
    kind: str, run: object
) -> None:
    """Keras (default signature), a Module's functions and two signatures, a Checkpoint's
    function and save counter, lists/dicts of variables and a function traced without an
    input signature: attributes, variables, values and a call no saved trace fits."""
    got = run(tf, os.path.join(_DATA, f"tf115_{kind}"))  # type: ignore[operator]
    reference.assert_nested_close(got, reference.case(_AREA, f"tf115_{kind}"))


@pytest.mark.parametrize(("kind", "save", "run"), _PROGRAMS)
def test_a_saved_model_tfcluster_saves_loads_as_tf_loaded_tfclusters_save(
    tmp_path: Path, kind: str, save: object, run: object
) -> None:
    path = str(tmp_path / kind)
    save(tf, path)  # type: ignore[operator]
    assert sorted(os.listdir(path)) == ["assets", "saved_model.pb", "variables"]
    got = run(tf, path)  # type: ignore[operator]
    reference.assert_nested_close(got, reference.case(_AREA, f"tf_loads_tfcluster_{kind}"))
    # TF's results on its own save of the same program are the same.
    reference.assert_nested_close(got, reference.case(_AREA, f"tf115_{kind}"))


def test_the_saved_files_carry_the_object_graph_signatures_and_checkpoint(tmp_path: Path) -> None:
    from tfcluster.lib.saved_model.loader import parse_saved_model
    from tfcluster.training import checkpoint_utils

    path = str(tmp_path / "m")
    cases.save_module(tf, path)
    meta = parse_saved_model(path).meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert sorted(meta.signature_def) == ["__saved_model_init_op", "serving_default", "two"]
    root = meta.object_graph_def.nodes[0]
    assert [c.local_name for c in root.children] == ["v", "b", "signatures", "f", "g"]
    assert root.user_object.identifier == "_generic_user_object"
    reader = checkpoint_utils.load_checkpoint(os.path.join(path, "variables", "variables"))
    np.testing.assert_array_equal(
        reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), [[1.0, 2.0], [3.0, 4.0]]
    )
    assert reader.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")


def test_loaded_variables_hold_the_saved_values_only_once_initialized() -> None:
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(os.path.join(_DATA, "tf115_module"))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(loaded.v.read_value())
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(loaded.v), [[1.0, 2.0], [3.0, 4.0]])


def test_a_restored_function_refuses_arguments_no_saved_signature_fits() -> None:
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(os.path.join(_DATA, "tf115_module"))
        with pytest.raises(ValueError, match="Could not find matching function"):
            loaded.f(tf.constant([1.0, 2.0, 3.0]))


def test_saving_a_non_trackable_object_is_a_value_error() -> None:
    recorded = reference.case(_AREA, "save_not_trackable")["error"]
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        tf.saved_model.save(object(), "/nonexistent/x")
    assert type(info.value).__name__ == recorded["error"]
    assert str(info.value).split(" got ")[0] == recorded["message"].split(" got ")[0]


def test_a_signature_from_a_plain_python_function_is_a_value_error(tmp_path: Path) -> None:
    recorded = reference.case(_AREA, "save_signature_without_input_signature")["error"]
    with tf.Graph().as_default():
        module = cases.module_class(tf)()
        with pytest.raises(ValueError) as info:
            tf.saved_model.save(module, str(tmp_path / "x"), signatures={"s": lambda: 1})
    assert type(info.value).__name__ == recorded["error"]
    tail = "Only `tf.functions` with an input signature"
    assert tail in str(info.value) and tail in recorded["message"]


def test_loading_a_missing_path_is_an_os_error(tmp_path: Path) -> None:
    recorded = reference.case(_AREA, "load_missing_path")["error"]
    missing = str(tmp_path / "missing")
    with tf.Graph().as_default(), pytest.raises(OSError) as info:
        tf.saved_model.load_v2(missing)
    assert type(info.value).__name__ == recorded["error"]
    assert str(info.value) == f"SavedModel file does not exist at: {missing}/" + (
        "{saved_model.pbtxt|saved_model.pb}"
    )


def test_a_signature_returning_a_flat_tuple_names_its_outputs_output_i(tmp_path: Path) -> None:
    path = str(tmp_path / "pair")
    cases.save_signature_outputs(tf, path, "pair")
    got = cases.run_loaded_pair(tf, path)
    reference.assert_nested_close(got, reference.case(_AREA, "signature_outputs_pair"))


@pytest.mark.parametrize("kind", ["nested", "non_tensor_value"])
def test_a_signature_with_nested_or_non_tensor_outputs_is_tfs_value_error(
    tmp_path: Path, kind: str
) -> None:
    recorded = _recorded_error(f"signature_outputs_{kind}")
    with pytest.raises(ValueError) as info:
        cases.save_signature_outputs(tf, str(tmp_path / "x"), kind)
    assert type(info.value).__name__ == recorded["error"]
    said = {
        "nested": "Got non-flat outputs '[<tf.Tensor",
        "non_tensor_value": "Got a dictionary containing non-Tensor value None for key b in",
    }[kind]
    assert said in str(info.value) and said in recorded["message"]
    assert not os.path.exists(tmp_path / "x" / "saved_model.pb")


def _recorded_error(case: str) -> dict[str, str]:
    return reference.case(_AREA, case)["error"]  # type: ignore[no-any-return]


def test_saving_a_function_that_captures_a_ref_variable_is_tfs_value_error(tmp_path: Path) -> None:
    recorded = _recorded_error("save_function_capturing_ref_variable")
    with tf.Graph().as_default():
        module = cases.ref_variable_class(tf)()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError) as info:
                tf.saved_model.save(module, str(tmp_path / "x"))
    assert type(info.value).__name__ == recorded["error"]
    assert str(info.value).split("which")[1] == recorded["message"].split("which")[1]


def test_saving_a_ref_variable_is_tfs_value_error(tmp_path: Path) -> None:
    recorded = _recorded_error("save_ref_variable")
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0, name="refonly"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError) as info:
                tf.saved_model.save(ckpt, str(tmp_path / "x"))
    assert (type(info.value).__name__, str(info.value)) == (recorded["error"], recorded["message"])
    assert not os.path.exists(tmp_path / "x" / "saved_model.pb")


def test_saving_a_checkpoint_reads_its_save_counter_which_must_be_initialized(
    tmp_path: Path,
) -> None:
    recorded = _recorded_error("save_checkpoint_uninitialized_save_counter")
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0, use_resource=True, name="fresh"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.OpError) as info:
                tf.saved_model.save(ckpt, str(tmp_path / "x"))
    assert type(info.value).__name__ == recorded["error"]


def test_loading_with_tags_the_one_meta_graph_lacks_is_tfs_value_error() -> None:
    recorded = _recorded_error("load_wrong_tags")
    path = os.path.join(_DATA, "tf115_module")
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        tf.saved_model.load_v2(path, tags=["train"])
    assert type(info.value).__name__ == recorded["error"]
    assert str(info.value).split(" has ")[1] == recorded["message"].split(" has ")[1]


def test_load_v2_of_a_saved_model_without_an_object_graph_is_unimplemented(tmp_path: Path) -> None:
    path = str(tmp_path / "v1")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.Session() as sess:
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": x * 2.0})
    with tf.Graph().as_default(), pytest.raises(tf.errors.UnimplementedError) as info:
        tf.saved_model.load_v2(path)
    assert "without an object graph" in str(info.value)


def test_the_save_names_are_one_function() -> None:
    assert tf.saved_model.save is tf.compat.v1.saved_model.save
    assert tf.saved_model.experimental.save is tf.saved_model.save
