"""`tf.*` names of tensors kept in a session between runs (session handles)."""

from tfcluster.ops.session_ops import delete_session_tensor, get_session_handle, get_session_tensor

__all__ = ["delete_session_tensor", "get_session_handle", "get_session_tensor"]
