"""tf.compat against TensorFlow's recorded values; tf.compat.v1 is tf itself (as an attribute
and as an import path), tf.compat.v2 is unimplemented; the version names say TF 1.15 while
tfcluster's own version stays findable; tf.resource_loader finds files as TF's does."""

from __future__ import annotations

import importlib
import pathlib
import subprocess
import sys
import tomllib
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference, scaffolding_cases
from tf_reference.codec import decode, encode

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "case",
    [
        "compat_conversions",
        "compat_type_tuples",
        "compat_dimensions",
        "compat_forward_compatibility",
    ],
)
def test_compat_functions_match_tensorflow(case: str) -> None:
    ours: Any = decode(encode(scaffolding_cases.compat_cases(tf)[case]))
    recorded = reference.case("scaffolding", case)
    assert ours.keys() == recorded.keys()
    for name, expected in recorded.items():
        if isinstance(expected, list) and expected and expected[0] == "error":
            assert ours[name][:2] == expected[:2], name  # messages are Python's own
        else:
            assert ours[name] == expected, name


def test_compat_v1_shows_tf_itself() -> None:
    """tf.compat.v1 is a view of tf (its names read without TF 1.15's deprecation
    warnings): the same objects, one view however it is reached."""
    assert tf.compat.v1.placeholder is tf.placeholder
    assert tf.compat.v1.compat.v1 is tf.compat.v1
    assert tf.compat.v1.nn.relu is tf.nn.relu
    v1 = importlib.import_module("tfcluster.compat.v1")
    assert v1 is tf.compat.v1
    assert importlib.import_module("tfcluster.compat.v1.train").Saver is tf.train.Saver
    assert importlib.import_module("tfcluster.compat.v1.train") is tf.compat.v1.train
    assert tf.__spec__.name == "tfcluster"  # importing the alias did not rebind tf's spec
    assert tf.nn.__spec__.name != "tfcluster.compat.v1.nn"


def test_compat_v1_reaches_unimplemented_names_as_tf_does() -> None:
    """Names tfcluster lacks answer through tf.compat.v1 as through tf: UnimplementedError on
    use (never AttributeError), from modules of their own class (tf.lite) too."""
    assert tf.compat.v1.lite.Interpreter is tf.lite.Interpreter
    with pytest.raises(tf.errors.UnimplementedError, match=r"tf\.lite\.Interpreter"):
        tf.compat.v1.lite.Interpreter("model.tflite")
    with pytest.raises(tf.errors.UnimplementedError, match=r"tf\.contrib"):
        tf.compat.v1.contrib.layers.fully_connected(None, 3)


def test_a_program_imports_tfcluster_compat_v1_as_tf() -> None:
    program = (
        "import tfcluster.compat.v1 as tf\n"
        "tf.disable_v2_behavior()\n"
        "tf.disable_eager_execution()\n"
        "assert not tf.executing_eagerly()\n"
        "from tfcluster.compat.v1 import logging\n"
        "x = tf.constant(2.0)\n"
        "with tf.Session() as sess:\n"
        "    print(sess.run(x * 3.0), logging is tf.logging, tf.__version__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["6.0", "True", "1.15.0"]


def test_compat_v2_is_unimplemented_on_use() -> None:
    with pytest.raises(tf.errors.UnimplementedError, match=r"tf\.compat\.v2\.Variable"):
        tf.compat.v2.Variable  # noqa: B018
    for switch_on in (tf.enable_eager_execution, tf.enable_v2_behavior):
        with pytest.raises(tf.errors.UnimplementedError):
            switch_on()


def test_flags_is_the_same_module_as_app_flags() -> None:
    assert tf.app.flags is tf.flags
    assert importlib.import_module("tfcluster.app.flags") is tf.flags
    assert importlib.import_module("tfcluster.flags") is tf.flags


def test_the_version_is_tensorflow_1_15_for_programs_that_check_it() -> None:
    assert tf.__version__ == tf.VERSION == tf.version.VERSION == "1.15.0"
    assert int(tf.__version__.split(".")[0]) == 1
    assert tuple(int(p) for p in tf.__version__.split(".")[:2]) >= (1, 4)
    assert tf.GIT_VERSION == tf.version.GIT_VERSION
    assert tf.GIT_VERSION.startswith("v1.15.0")
    assert tf.COMPILER_VERSION == tf.version.COMPILER_VERSION
    assert isinstance(tf.COMPILER_VERSION, str) and tf.COMPILER_VERSION


def test_tfclusters_own_version_is_the_packages() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        project_version = tomllib.load(f)["project"]["version"]
    assert tf.version.tfcluster_version == project_version
    assert project_version in tf.GIT_VERSION


def test_graph_def_versions_are_what_graphs_carry() -> None:
    graph_def = tf.Graph().as_graph_def()
    assert graph_def.versions.producer == tf.GRAPH_DEF_VERSION == tf.version.GRAPH_DEF_VERSION
    assert tf.GRAPH_DEF_VERSION_MIN_CONSUMER == 0
    assert tf.GRAPH_DEF_VERSION_MIN_PRODUCER == 0


def test_resource_loader_finds_files_next_to_the_caller() -> None:
    here = pathlib.Path(__file__).parent
    assert tf.resource_loader.get_data_files_path() == str(here)
    assert tf.resource_loader.get_path_to_datafile("x.bin") == str(here / "x.bin")
    assert tf.resource_loader.readahead_file_path("/a/b", "256M") == "/a/b"
    package = pathlib.Path(tf.__file__).parent
    names = (package / "api" / "tf115_v1_names.json").read_bytes()
    assert tf.resource_loader.load_resource("api/tf115_v1_names.json") == names
    with pytest.raises(OSError):
        tf.resource_loader.load_resource("no/such/file")
    root = pathlib.Path(tf.resource_loader.get_root_dir_with_all_resources())
    assert root.is_dir() and package in (root, *root.parents)


def test_dir_of_compat_lists_tfs_names_and_its_v1_and_v2_modules() -> None:
    """TF 1.15's dir(tf.compat): its functions and constants (the recorded v1 names) and the
    v1 and v2 modules; nothing of the module's own imports."""
    import json

    names = json.loads(
        (pathlib.Path(tf.__file__).parent / "api" / "tf115_v1_names.json").read_text()
    )["compat"]
    public = [n for n in dir(tf.compat) if not n.startswith("_")]
    assert public == sorted([*names, "v1", "v2"])
