"""`tf.*` name of the JSON-Example codec (base64 comes with the string ops)."""

from tfcluster.ops.unicode_ops import decode_json_example

__all__ = ["decode_json_example"]
