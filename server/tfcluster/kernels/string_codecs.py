"""Kernels of tf.io's byte codecs: EncodeBase64 / DecodeBase64 (the web-safe alphabet, '-'
and '_', padding optional on input, as TF) and DecodeJSONExample (an Example in protobuf's
JSON form to its binary serialization). CPU only: values are object arrays of bytes."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np
from google.protobuf import json_format

from tfcluster.kernels.common import Compute, host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import example_pb2

_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _map(fn: Any, value: Any) -> np.ndarray:
    arr = np.asarray(host_array(value), dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = arr.reshape(-1)
    out.reshape(-1)[:] = [fn(v if isinstance(v, bytes) else bytes(v)) for v in flat]
    return out


@kernel("EncodeBase64", devices=CPU_ONLY)
def encode_base64(node: Any, xp: Any) -> Compute:
    pad = bool(node.attrs.get("pad", False))

    def encode(data: bytes) -> bytes:
        text = base64.urlsafe_b64encode(data)
        return text if pad else text.rstrip(b"=")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_map(encode, ins[0]),)

    return compute


def _decode(text: bytes) -> bytes:
    body = text.rstrip(b"=")
    # Padding is optional; when present it must complete the last group of four.
    if not set(body) <= _ALPHABET or (text != body and len(text) % 4):
        raise invalid("Invalid character found in base64.")
    if len(body) % 4 == 1:
        raise invalid("Base64 string length cannot be 1 modulo 4.")
    try:
        return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
    except binascii.Error as e:
        raise invalid(f"Invalid base64: {e}") from None


@kernel("DecodeBase64", devices=CPU_ONLY)
def decode_base64(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_map(_decode, ins[0]),)

    return compute


def _json_to_example(text: bytes) -> bytes:
    message = example_pb2.Example()
    try:
        json_format.Parse(text, message)
    except json_format.ParseError as e:
        raise invalid(f"Error while parsing JSON: {e}") from None
    return message.SerializeToString()


@kernel("DecodeJSONExample", devices=CPU_ONLY)
def decode_json_example(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_map(_json_to_example, ins[0]),)

    return compute
