"""The hashes TF's string-to-bucket ops use, so buckets are TF's exactly: FarmHash's
Fingerprint64 (to_hash_bucket_fast, through pyfarmhash), TF's legacy Hash64 (a 64-bit
MurmurHash2 with seed 0xDECAFCAFFE: to_hash_bucket) and SipHash-2-4 keyed with two 64-bit
words (to_hash_bucket_strong)."""

from __future__ import annotations

import struct

import farmhash

_MASK = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995
_SEED = 0xDECAFCAFFE


def fingerprint64(data: bytes) -> int:
    return int(farmhash.fingerprint64(data))


def hash64(data: bytes, seed: int = _SEED) -> int:
    """tensorflow/core/lib/hash/hash.cc Hash64."""
    n = len(data)
    h = (seed ^ (n * _M)) & _MASK
    blocks = n // 8
    for (k,) in struct.iter_unpack("<Q", data[: blocks * 8]):
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    tail = data[blocks * 8 :]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    h ^= h >> 47
    return h


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of data under the key (k0, k1) (highwayhash's SipHash)."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(n: int) -> None:
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)

    n = len(data)
    blocks = n // 8
    for (m,) in struct.iter_unpack("<Q", data[: blocks * 8]):
        v3 ^= m
        rounds(2)
        v0 ^= m
    last = (n & 0xFF) << 56
    for i, byte in enumerate(data[blocks * 8 :]):
        last |= byte << (8 * i)
    v3 ^= last
    rounds(2)
    v0 ^= last
    v2 ^= 0xFF
    rounds(4)
    return v0 ^ v1 ^ v2 ^ v3
