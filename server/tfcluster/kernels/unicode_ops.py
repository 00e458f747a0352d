"""Kernels of the Unicode string ops (UnicodeTranscode, UnicodeEncode, UnicodeScript) and
StringNGrams: values are numpy object arrays of bytes (the CPU only). Python's codecs do the
encoding work; TF's error modes (strict / replace / ignore) map onto codec error handlers."""

from __future__ import annotations

import codecs
import functools
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

# TF's encoding names (ICU's) -> Python codecs.
_CODECS = {
    "UTF-8": "utf-8",
    "UTF-16-BE": "utf-16-be",
    "UTF-16LE": "utf-16-le",
    "UTF-16-LE": "utf-16-le",
    "UTF-32-BE": "utf-32-be",
    "UTF-32-LE": "utf-32-le",
    "US ASCII": "ascii",
    "US-ASCII": "ascii",
    "ASCII": "ascii",
    "ISO-8859-1": "latin-1",
    "LATIN1": "latin-1",
}
# What the encoding ops may write (TF's output_encoding attr).
OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def python_codec(name: str, what: str) -> str:
    found = _CODECS.get(name.upper())
    if found is None:
        raise invalid(f"Could not create converter for {what} encoding: {name}")
    return found


@functools.cache
def _replacing(replacement: int) -> str:
    """A codec error handler writing chr(replacement) for each bad stretch (Python's own
    'replace' always writes U+FFFD or '?')."""
    name = f"tfcluster-replace-{replacement}"
    text = chr(replacement)

    def handler(err: UnicodeError) -> tuple[str, int]:
        assert isinstance(err, (UnicodeDecodeError, UnicodeEncodeError))
        return text, err.end

    codecs.register_error(name, handler)
    return name


def _handler(errors: str, replacement: int) -> str:
    if errors == "strict":
        return "strict"
    if errors == "ignore":
        return "ignore"
    return _replacing(replacement)


def _check_replacement(errors: str, replacement: int) -> None:
    if errors not in ("strict", "replace", "ignore"):
        raise invalid(f"errors must be one of strict, replace, ignore, got {errors}")
    if errors == "replace" and not 0 <= replacement <= 0x10FFFF:
        raise invalid(f"Replacement character {replacement} is not a valid code point")


def _to_output(text: str, target: str) -> bytes:
    """text in the output encoding; surrogates left unpaired (a surrogate replacement
    character) become U+FFFD outside UTF-16, as ICU writes them."""
    try:
        return text.encode(target)
    except UnicodeEncodeError:
        units = text.encode("utf-16-be", "surrogatepass")
        if target == "utf-16-be":
            return units
        return units.decode("utf-16-be", "replace").encode(target)


def _c0_to(text: str, replacement: int) -> str:
    """Control characters U+0000..U+001F replaced (TF's replace_control_characters)."""
    if not any(ord(c) < 0x20 for c in text):
        return text
    return "".join(chr(replacement) if ord(c) < 0x20 else c for c in text)


def _map_bytes(fn: Any, arr: np.ndarray) -> np.ndarray:
    out = np.empty(arr.shape, dtype=object)
    flat = arr.reshape(-1)
    out.reshape(-1)[:] = (
        [fn(v if isinstance(v, bytes) else bytes(v)) for v in flat] if flat.size else []
    )
    return out


@kernel("UnicodeTranscode", devices=CPU_ONLY)
def unicode_transcode(node: Any, xp: Any) -> Compute:
    source = python_codec(_text(node.attrs["input_encoding"]), "input")
    target_name = _text(node.attrs["output_encoding"])
    target = python_codec(target_name, "output")
    errors = _text(node.attrs.get("errors", "replace"))
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))
    controls = bool(node.attrs.get("replace_control_characters", False))
    _check_replacement(errors, replacement)
    handler = _handler(errors, replacement)

    def convert(value: bytes) -> bytes:
        try:
            text = value.decode(source, handler)
        except UnicodeDecodeError:
            raise invalid(
                f"Invalid formatting on input string (input_encoding {source}): {value!r}"
            ) from None
        if controls:
            text = _c0_to(text, replacement)
        return _to_output(text, target)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_map_bytes(convert, np.asarray(host_array(ins[0]), dtype=object)),)

    return compute


@kernel("UnicodeEncode", devices=CPU_ONLY)
def unicode_encode(node: Any, xp: Any) -> Compute:
    target = python_codec(_text(node.attrs["output_encoding"]), "output")
    errors = _text(node.attrs.get("errors", "replace"))
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))
    _check_replacement(errors, replacement)

    utf16 = target == "utf-16-be"

    def encode(points: list[int]) -> bytes:
        # TF (ICU) appends UTF-16 units: a surrogate code point is one unit, and two in a row
        # make a pair; only values outside 0..0x10FFFF count as errors.
        chars = []
        for cp in points:
            if 0 <= cp <= 0x10FFFF:
                chars.append(chr(cp))
            elif errors == "replace":
                chars.append(chr(replacement))
            elif errors == "strict":
                raise invalid("Code point value out of valid Unicode range.")
        units = "".join(chars).encode("utf-16-be", "surrogatepass")
        if utf16:
            return units
        if target == "utf-32-be":
            # Pairs join; a lone surrogate is written as it is.
            return units.decode("utf-16-be", "surrogatepass").encode(target, "surrogatepass")
        # Pairs join; a lone surrogate becomes U+FFFD.
        return units.decode("utf-16-be", "replace").encode(target)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        values = host_array(ins[0]).astype(np.int64).reshape(-1)
        splits = host_array(ins[1]).astype(np.int64).reshape(-1)
        if splits.size == 0:
            raise invalid("Input splits must contain at least one value")
        if splits[0] != 0 or splits[-1] != values.size or np.any(np.diff(splits) < 0):
            raise invalid(
                f"Invalid splits: splits must start at 0, be non-decreasing and end at the "
                f"number of values ({values.size})"
            )
        rows = values.tolist()
        bounds = splits.tolist()
        out = np.empty(len(bounds) - 1, dtype=object)
        out[:] = [encode(rows[a:b]) for a, b in itertools.pairwise(bounds)]
        return (out,)

    return compute


@kernel("StringNGrams", devices=CPU_ONLY)
def string_ngrams(node: Any, xp: Any) -> Compute:
    separator = node.attrs["separator"]
    separator = separator if isinstance(separator, bytes) else str(separator).encode()
    widths = [int(w) for w in node.attrs["ngram_widths"]]
    left = node.attrs["left_pad"]
    left = left if isinstance(left, bytes) else str(left).encode()
    right = node.attrs["right_pad"]
    right = right if isinstance(right, bytes) else str(right).encode()
    pad_width = int(node.attrs["pad_width"])
    preserve = bool(node.attrs["preserve_short_sequences"])

    def row_ngrams(row: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        for width in widths:
            pad = width - 1 if pad_width < 0 else min(pad_width, width - 1)
            padded = [left] * pad + row + [right] * pad
            count = len(padded) - width + 1
            out.extend(separator.join(padded[i : i + width]) for i in range(max(count, 0)))
        if not out and preserve and row:
            # A sequence shorter than every width becomes one n-gram of itself (padded).
            pad = max(pad_width, 0)
            out.append(separator.join([left] * pad + row + [right] * pad))
        return out

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = np.asarray(host_array(ins[0]), dtype=object).reshape(-1)
        splits = host_array(ins[1]).astype(np.int64).reshape(-1)
        if splits.size == 0 or splits[0] != 0 or splits[-1] != data.size:
            raise invalid(
                f"Invalid split value: splits must start at 0 and end at {data.size}, got "
                f"{splits.tolist()}"
            )
        items = [v if isinstance(v, bytes) else bytes(v) for v in data.tolist()]
        grams: list[bytes] = []
        out_splits = [0]
        for a, b in zip(splits[:-1].tolist(), splits[1:].tolist()):
            if b < a:
                raise invalid(f"Invalid split value: splits must be non-decreasing, got {a}, {b}")
            grams.extend(row_ngrams(items[a:b]))
            out_splits.append(len(grams))
        values = np.empty(len(grams), dtype=object)
        values[:] = grams
        return values, np.asarray(out_splits, dtype=np.int64)

    return compute


@functools.cache
def _script_runs() -> tuple[np.ndarray, np.ndarray]:
    """(start code point of each run, its UScriptCode): TF 1.15's answers, recorded by
    tools/record_unicode_scripts.py."""
    path = Path(__file__).with_name("unicode_scripts.json")
    with path.open() as f:
        doc = json.load(f)
    return np.asarray(doc["starts"], dtype=np.int64), np.asarray(doc["codes"], dtype=np.int32)


@kernel("UnicodeScript", devices=CPU_ONLY)
def unicode_script(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        points = host_array(ins[0]).astype(np.int64)
        starts, codes = _script_runs()
        found = codes[np.clip(np.searchsorted(starts, points, side="right") - 1, 0, None)]
        valid = (points >= 0) & (points <= 0x10FFFF)
        return (np.where(valid, found, -1).astype(np.int32),)

    return compute
