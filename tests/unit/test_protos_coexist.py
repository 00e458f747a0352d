"""tfcluster's copies of TensorFlow's messages (Example, SaverDef, MetaGraphDef, ...) keep TF's
field numbers but live in tfcluster's own proto package: a process that also imports real
TensorFlow would otherwise fail with protobuf's "duplicate symbol 'tensorflow.…'"."""

from __future__ import annotations

import importlib
import pkgutil


def test_no_generated_message_claims_tensorflows_proto_package() -> None:
    packages = {}
    generated = importlib.import_module("tfcluster.protos")
    for info in pkgutil.iter_modules(generated.__path__):
        if info.name.endswith("_pb2"):
            module = importlib.import_module(f"tfcluster.protos.{info.name}")
            packages[info.name] = module.DESCRIPTOR.package
    assert packages, "no generated modules found"
    clashing = {name: p for name, p in packages.items() if not p.startswith("tfcluster")}
    assert not clashing, clashing


def test_anys_carry_tensorflows_type_names_and_read_under_either() -> None:
    """A SavedModel's asset collection holds Anys: TF reads them by its own type name."""
    from tfcluster.framework import tf_any
    from tfcluster.protos import meta_graph_pb2

    asset = meta_graph_pb2.AssetFileDef(filename="vocab.txt")
    packed = tf_any.pack(asset)
    assert packed.type_url == "type.googleapis.com/tensorflow.AssetFileDef"
    assert tf_any.unpack(packed, meta_graph_pb2.AssetFileDef()).filename == "vocab.txt"
    packed.type_url = "type.googleapis.com/tfcluster.AssetFileDef"
    assert tf_any.unpack(packed, meta_graph_pb2.AssetFileDef()).filename == "vocab.txt"
    packed.type_url = "type.googleapis.com/tensorflow.TensorInfo"
    try:
        tf_any.unpack(packed, meta_graph_pb2.AssetFileDef())
    except ValueError as e:
        assert "tensorflow.AssetFileDef" in str(e)
    else:
        raise AssertionError("an Any of another type was accepted")
