"""Where TF 1.15's float32 MatMul on the CPU cuts the contracted dimension, and how it adds
the pieces.

TF 1.15 multiplies float32 matrices with Eigen's thread-pool tensor contraction, its kernel
MKL-DNN's sgemm: every output is one running fused multiply-add over a block of the
contracted dimension (_mkldnn_sgemm), and the blocks' sums are added. Which blocks depends on
the shape and on the intra-op pool, through Eigen's heuristics (TensorContractionThreadPool.h,
GeneralBlockPanelKernel.h and TF's eigen_contraction_kernel.h, as TF 1.15 ships them):

- its cost model picks the threads for the output (`numThreads`) and for the contracted
  dimension (`numThreadsInnerDim`); where the latter offers more (`shardByInnerDim`), the
  contracted dimension is cut in one range per thread, each range's product (itself blocked)
  goes to a buffer of its own, and the buffers are added (in groups of four, then the groups);
- otherwise the product runs on one thread or on several, each output taking the blocks of
  the contracted dimension in order, each block's sum added to the output;
- the block size is Eigen's cache-based `kc` (320 at most with threads, ~400 on one), which
  TF then evens out: the dimension in ceil(k / kc) slices of floor(k / slices) rounded up to
  8 (`TensorContractionBlocking` for MKL-DNN).

An MNIST layer's 784 inputs against 50 units over a batch of 100 is sharded on two threads:
two ranges of 392, each two blocks (200 + 192), the two ranges added. Recorded:
tests/tf_reference/record_float32_blocked_products.py.

Eigen sees a row-major product transposed: its m is the output's columns, its n the rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# gebp_traits<float, float> of TF 1.15's AVX build without FMA: register blocks of NR
# columns and MR rows ((16 registers / 2 / NR) packets of 8 floats).
_NR = 4
_MR = 16
_PACKET = 8
# Eigen's cache sizes (bytes): L1 as it reads it from the CPU; L3 only bounds the buffers of
# a product sharded by the contracted dimension.
_L1 = 32 * 1024
_L3 = 32 * 1024 * 1024
# TensorCostModel: cycles per byte loaded or stored, and its thread overheads.
_BYTE_CYCLES = 11.0 / 64.0
_STARTUP_CYCLES = 100000.0
_PER_THREAD_CYCLES = 100000.0
# numThreadsInnerDim's overheads.
_INNER_PER_THREAD = 3000.0
_INNER_FIXED = 100000.0
# What reading one coefficient of an operand costs: a MatMul's operands are plain tensor maps
# (bytes, no cycles; a BatchMatMul's chipped ones count a cycle a packet more, and cut the
# contracted dimension for smaller products: not modelled here).
_OPERAND_BYTES = 4.0
# EvalShardedByInnerDimContext: a range at least this long; buffers added four at a time.
_MIN_RANGE = 12 * _PACKET
_L0_SIZE = 4
# MKL-DNN's sgemm sums this many terms at most in one running sum, and cuts a longer block in
# pieces of this size, or in two halves of up to twice it.
_SGEMM_DEPTH = 384

Blocks = list[tuple[int, int]]


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _bandwidth(shard_by_col: bool, bm: int, bn: int, bk: int) -> float:
    """computeBandwidth (no FMA: the peak 0.5 counts as 1.0)."""
    if bk == 1:
        return 4.0
    narrow = (bn if shard_by_col else bm) < _NR or (bm if shard_by_col else bn) < _MR
    return 2.0 if narrow else 1.0


def _total_cycles(count: float, loaded: float, stored: float, compute: float) -> float:
    return count * ((loaded + stored) * _BYTE_CYCLES + compute)


def _eigen_kc(k: int, m: int, n: int, threads: int) -> int:
    """computeProductBlockingSizes' block of the contracted dimension."""
    kdiv = _MR * 4 + _NR * 4
    ksub = _MR * _NR * 4
    if threads > 1:
        k_cache = min((_L1 - ksub) // kdiv, 320)
        return k_cache - k_cache % 8 if k_cache < k else k
    if max(k, m, n) < 48:
        return k
    max_kc = max(((_L1 - ksub) // kdiv) & ~7, 1)
    if k <= max_kc:
        return k
    if k % max_kc == 0:
        return max_kc
    return max_kc - 8 * ((max_kc - 1 - k % max_kc) // (8 * (k // max_kc + 1)))


def _tf_kc(k: int, m: int, n: int, threads: int) -> int:
    """TF's TensorContractionBlocking for MKL-DNN: Eigen's kc, evened out over the slices."""
    kc = _eigen_kc(k, m, n, threads)
    slices = max(1, _ceil(k, kc))
    return min(k, _ceil(k // slices, _PACKET) * _PACKET)


def _blocks(start: int, stop: int, kc: int) -> Blocks:
    """[start, stop) in blocks of kc, each cut again where MKL-DNN's sgemm would."""
    out: Blocks = []
    for lo in range(start, stop, kc):
        hi = min(lo + kc, stop)
        at = lo
        while at < hi:
            size = hi - at
            if size >= 2 * _SGEMM_DEPTH:
                size = _SGEMM_DEPTH
            elif size > _SGEMM_DEPTH:
                size = (size + 1) // 2
            out.append((at, at + size))
            at += size
    return out


def _shard_by_col(m: int, n: int, threads: int) -> bool:
    if m // threads >= _NR and (
        n // threads < _NR
        or (
            n // threads < 4 * _NR
            and n % (threads * _NR) != 0
            and (m % (threads * _NR) == 0 or m // n >= 6)
        )
    ):
        return False
    return not (n // threads < 16 * _NR and m > n * 32)


def _output_threads(m: int, n: int, k: int, threads: int) -> int:
    """numThreads of evalProductImpl's first estimate (blocking for 2 threads)."""
    shard_by_col = _shard_by_col(m, n, 2)
    bk = _tf_kc(k, m, n, 2)
    # TF's refined mc / nc are at least min(m, 48) / min(n, 24): only their smallness counts.
    bandwidth = 2.0 if m < _NR or n < _MR else 1.0
    if bk == 1:
        bandwidth = 4.0
    # The operands' costs per output: bk / n lhs and bk / m rhs coefficients, the memory of
    # the one packed once (lhs when sharding by columns) not counted.
    per_lhs, per_rhs = bk / n, bk / m
    compute = bk * bandwidth / _PACKET
    loaded = _OPERAND_BYTES * (per_rhs if shard_by_col else per_lhs)
    cost = _total_cycles(float(m) * n, loaded, 4.0, compute)
    wanted = (cost - _STARTUP_CYCLES) / _PER_THREAD_CYCLES + 0.9
    return min(threads, max(1, int(wanted)))


def _inner_threads(m: int, n: int, k: int, threads: int) -> int:
    """numThreadsInnerDim."""
    # Per step of the contracted dimension: the products and n rhs coefficients (the lhs'
    # memory not counted).
    compute = _bandwidth(True, m, n, k) * m * n / _PACKET
    parallel = _total_cycles(k, _OPERAND_BYTES * n, 4.0, compute)
    reduction = _total_cycles(m * n, 2.0, 1.0, 1.0 / _PACKET)
    best, best_cost = 1, parallel
    for nt in range(2, threads + 1, 2):
        cost = parallel / nt + _INNER_FIXED + nt * (reduction + _INNER_PER_THREAD)
        if cost < best_cost:
            best, best_cost = nt, cost
    return best


def _shard_by_inner(m: int, n: int, k: int, threads: int, by_k: int) -> bool:
    if n == 1 or by_k < 2 or by_k < threads or m * n * 4 > _L3 // by_k or k // by_k < 2 * _NR:
        return False
    return max(m, n) // threads < _NR or (
        k // by_k > 8 * _NR and (min(m, n) < 2 * _NR or by_k > threads)
    )


def k_blocks(rows: int, depth: int, cols: int, threads: int) -> list[Blocks]:
    """The contracted dimension of a rows x depth x cols float32 product as TF 1.15 cuts it on
    an intra-op pool of `threads`: one list of blocks per range summed into a buffer of its own
    (one range unless the product is sharded by the contracted dimension)."""
    m, n, k = cols, rows, depth
    threads = max(1, threads)
    out_threads = _output_threads(m, n, k, threads)
    by_k = _inner_threads(m, n, k, threads)
    if _shard_by_inner(m, n, k, out_threads, by_k):
        size = min(k, max(_MIN_RANGE, _ceil(_ceil(k, by_k), 8) * 8))
        ranges = [(lo, min(lo + size, k)) for lo in range(0, k, size)]
        return [_blocks(lo, hi, _tf_kc(hi - lo, m, n, len(ranges))) for lo, hi in ranges]
    if n == 1:
        out_threads = 1
    if out_threads > 1:
        return [_blocks(0, k, _tf_kc(k, m, n, out_threads))]
    return [_blocks(0, k, _tf_kc(k, m, n, 1))]


def _add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.add(x, y, dtype=np.float32)


def blocked_product(
    a: np.ndarray,
    b: np.ndarray,
    threads: int,
    block_product: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray | None:
    """a @ b (2-D float32) added up from block_product(a[:, lo:hi], b[lo:hi]) (each one
    running sum) in TF 1.15's blocks and order, or None where TF takes the contracted
    dimension in one block."""
    ranges = k_blocks(a.shape[0], a.shape[1], b.shape[1], threads)
    if len(ranges) == 1 and len(ranges[0]) == 1:
        return None
    sums = []
    for blocks in ranges:
        acc = block_product(a[:, blocks[0][0] : blocks[0][1]], b[blocks[0][0] : blocks[0][1]])
        for lo, hi in blocks[1:]:
            acc = _add(block_product(a[:, lo:hi], b[lo:hi]), acc)
        sums.append(acc)
    # Each group of four buffers added into its first: (dst + s0) + (s1 + s2), or one by one
    # for a last, shorter group; then the groups' sums into the first, three at a time.
    groups = []
    for g in range(0, len(sums), _L0_SIZE):
        part = sums[g : g + _L0_SIZE]
        if len(part) == _L0_SIZE:
            groups.append(_add(_add(part[0], part[1]), _add(part[2], part[3])))
        else:
            acc = part[0]
            for s in part[1:]:
                acc = _add(s, acc)
            groups.append(acc)
    total = groups[0]
    i = 1
    while i + 2 < len(groups):
        total = _add(_add(total, groups[i]), _add(groups[i + 1], groups[i + 2]))
        i += 3
    for s in groups[i:]:
        total = _add(s, total)
    return total
