"""Variable.SaveSliceInfo: where one part of a partitioned variable sits in the full
variable, so that a checkpoint stores the part as a slice of the full tensor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.meta_graph import prepend_name_scope, strip_name_scope
from tfcluster.protos import variable_pb2


class SaveSliceInfo:
    def __init__(
        self,
        full_name: str | None = None,
        full_shape: Sequence[int] | None = None,
        var_offset: Sequence[int] | None = None,
        var_shape: Sequence[int] | None = None,
        save_slice_info_def: Any = None,
        import_scope: str | None = None,
    ) -> None:
        if save_slice_info_def is not None:
            full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
            full_shape = list(save_slice_info_def.full_shape)
            var_offset = list(save_slice_info_def.var_offset)
            var_shape = list(save_slice_info_def.var_shape)
        self.full_name = full_name
        self.full_shape = [int(d) for d in full_shape or ()]
        self.var_offset = [int(d) for d in var_offset or ()]
        self.var_shape = [int(d) for d in var_shape or ()]

    @property
    def spec(self) -> str:
        """The shape_and_slices string of SaveV2: 'full dims offset,len:offset,len'."""
        full = " ".join(str(d) for d in self.full_shape)
        extents = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))
        return f"{full} {extents}"

    def to_proto(self, export_scope: str | None = None) -> variable_pb2.SaveSliceInfoDef | None:
        return slice_info_to_proto(self, export_scope)


def slice_info_to_proto(info: Any, export_scope: str | None = None) -> Any:
    """The SaveSliceInfoDef of a variable's slice info (any object with full_name,
    full_shape, var_offset and var_shape)."""
    if export_scope is not None and not (info.full_name or "").startswith(export_scope):
        return None
    proto = variable_pb2.SaveSliceInfoDef()
    proto.full_name = strip_name_scope(info.full_name, export_scope)
    proto.full_shape.extend(int(d) for d in info.full_shape)
    proto.var_offset.extend(int(d) for d in info.var_offset)
    proto.var_shape.extend(int(d) for d in info.var_shape)
    return proto
