"""google.protobuf.Any as TensorFlow writes it, for tfcluster's copies of TF's messages.

tfcluster's copies (AssetFileDef, ...) keep TF's field numbers but live in the proto package
`tfcluster` (so that a process may import real TensorFlow too). An Any names its message
type, so files would differ from TF's there: Anys are written with TF's type names
(`type.googleapis.com/tensorflow.AssetFileDef`) and read under either name.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import any_pb2

_PREFIX = "type.googleapis.com/"
_OURS = "tfcluster."
_TFS = "tensorflow."


def _tf_full_name(message: Any) -> str:
    full = message.DESCRIPTOR.full_name
    return _TFS + full[len(_OURS) :] if full.startswith(_OURS) else full


def pack(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.type_url = _PREFIX + _tf_full_name(message)
    packed.value = message.SerializeToString()
    return packed


def unpack(packed: any_pb2.Any, message: Any) -> Any:
    """Parses `packed` into `message` (a new instance of the expected type); ValueError when
    the Any holds another type."""
    name = packed.type_url.rsplit("/", 1)[-1]
    if name not in (message.DESCRIPTOR.full_name, _tf_full_name(message)):
        raise ValueError(f"expected an Any of {_tf_full_name(message)}, found {name or '?'}")
    message.ParseFromString(packed.value)
    return message
