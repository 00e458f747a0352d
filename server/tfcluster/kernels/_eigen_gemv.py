"""Matrix-vector products (MatMul with one output row, or one output column and a transposed
first operand) summed in the order TF 1.15's CPU kernel sums them.

TF 1.15's MatMul sends these shapes to Eigen's matrix-vector routine (general_matrix_vector
_product, AVX without FMA: every product and every sum rounded to the dtype) instead of its
blocked GEMM, and that routine's order is simple enough to repeat:

- column-major form (one output row with an untransposed second operand, through the tensor
  contraction; one output column with a transposed first operand, through TF's explicit
  matrix-vector path): each output is a plain running sum over the contracted dimension, in
  blocks of 16 (4 when the matrix's stride passes 32000 bytes) once that dimension reaches
  128, each block summed alone and then added to the output;
- row-major form (one output row with a transposed second operand, or one output column with
  an untransposed first operand: a dense layer of one unit): each output sums the
  contracted dimension in SIMD lanes (32 bytes: 8 float32 or 4 float64 lanes), lane l taking
  every element l modulo the lane count, then adds the lanes pairwise as the SSE/AVX horizontal
  sum does, then the remaining elements one by one; a last unpaired row also takes one half
  packet (4 float32 or 2 float64 lanes) before those.

BLAS (numpy) sums in another order, so the linear models of TF1 tutorials (a weight vector's
gradient is such a product) drift from TF in the last bits after a few steps. Other shapes stay
BLAS's: TF's blocked GEMM for them is not repeated here; so do products of more than MAX_WORK
multiply-adds (a few passes over the terms in numpy cost ~5-10x BLAS's time), and row-major
ones of more than MAX_ROW_MAJOR_WORK.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels._window import SCRATCH, over_batch

_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
# Eigen's switch to shorter column blocks, and the contracted length from which it blocks.
_STRIDE_BYTES = 32000
_BLOCK_FROM = 128
# Products of more multiply-adds than this go to BLAS: a matrix-vector product here takes a few
# passes over its terms (~3-5x BLAS's time), bounded at about a millisecond (a batch-1 forward
# step through a large dense layer, a DQN's 3136x512 or an LSTM's, is BLAS's).
MAX_WORK = 1 << 20
# The row-major form (a transposed weight matrix times one row: the input gradient of a
# batch-1 training step; a one-unit dense layer) costs ~1 ns a multiply-add on one core, 3-4x
# BLAS's: it keeps TF's order up to a quarter of a million (a linear model's products, its
# gradients), beyond that BLAS's time (an LSTM's 2048x513 input gradient every step).
MAX_ROW_MAJOR_WORK = 1 << 18
_PACKET_BYTES = 32
# Matrix-vector products of at least this many terms go chunk by chunk, on every core
# (_col_major_in_chunks), in chunks of terms of about _CHUNK_BYTES.
_CHUNKED_FROM = 1 << 16
_CHUNK_BYTES = 1 << 20


def _running_sums(terms: np.ndarray, axis: int) -> np.ndarray:
    """Sums along `axis` (not the last) added one after another in the dtype, then added to
    a zero as Eigen adds to its zeroed output (so no -0.0). numpy adds in pairs only along an
    array's innermost axis: along another one it adds whole slices in turn; with a single
    column left (where numpy would make that axis the innermost) a cumulative sum does it."""
    if terms.shape[-1] == 1:
        last = np.cumsum(np.moveaxis(terms[..., 0], axis, -1), axis=-1)[..., -1][..., None]
    else:
        last = np.add.reduce(terms, axis=axis)
    last += 0
    return np.asarray(last)


def _col_major(vec: np.ndarray, mat: np.ndarray, stride: int) -> np.ndarray:
    """out[n] = sum_k mat[k, n] * vec[k], as Eigen's column-major GEMV sums it: a running sum
    per block of columns of the contracted dimension, the blocks' sums added in turn."""
    depth = vec.shape[0]
    if depth < _BLOCK_FROM:
        block = depth
    else:
        block = 16 if stride * mat.dtype.itemsize < _STRIDE_BYTES else 4
    if block < depth and mat.shape[1] > 1 and vec.size * mat.shape[1] >= _CHUNKED_FROM:
        return _col_major_in_chunks(vec, mat, block)
    terms = mat * vec[:, None]
    if block == depth:
        return _running_sums(terms, axis=0)
    blocks = -(-depth // block)
    if blocks * block != depth:  # zeros after the last terms leave its running sum as it is
        pad = np.zeros((blocks * block - depth, terms.shape[1]), terms.dtype)
        terms = np.concatenate([terms, pad])
    parts = _running_sums(terms.reshape(blocks, block, -1), axis=1)
    return _running_sums(parts, axis=0)


def _col_major_in_chunks(vec: np.ndarray, mat: np.ndarray, block: int) -> np.ndarray:
    """_col_major's sums (blocks of `block` terms, more than one block, two columns or more)
    chunk by chunk, the chunks on every core: each block's sum is the same wherever it is
    made, and the blocks' sums are then added in order, as before. A DQN's 3136 x 512 dense
    layer at batch 1 (~0.8 ms of numpy on one core, half its act step) ran on one core while
    the other had nothing to do. Each chunk's terms go into a lent buffer that stays in the
    cache while its blocks are summed (not a 6.4 MB array of all the terms)."""
    depth, n = mat.shape
    blocks = -(-depth // block)
    per_chunk = max(1, _CHUNK_BYTES // (block * n * mat.itemsize))
    chunks = -(-blocks // per_chunk)
    parts = np.empty((blocks, n), mat.dtype)
    # Buffers taken from SCRATCH once per thread, not once per chunk (each chunk is one call
    # of run: ~7 us a lend, a few percent of a DQN's act step); list.pop/append are atomic.
    spare: list[tuple[Any, Any]] = []

    def run(which: slice) -> None:
        lent = spare.pop() if spare else SCRATCH.take(np, (per_chunk * block, n), mat.dtype)
        buf = lent[1]
        try:
            for i in range(*which.indices(chunks)):
                first, last = i * per_chunk, min(blocks, (i + 1) * per_chunk)
                rows = slice(first * block, min(depth, last * block))
                terms = buf[: rows.stop - rows.start]
                np.multiply(mat[rows], vec[rows, None], out=terms)
                whole = terms.shape[0] // block
                if whole:
                    shaped = terms[: whole * block].reshape(whole, block, n)
                    np.add.reduce(shaped, axis=1, out=parts[first : first + whole])
                if whole * block < terms.shape[0]:
                    # A last block of fewer terms (_col_major pads it with zeros: the same
                    # sum, but for a -0.0, which the `+= 0` below makes +0.0 alike).
                    np.add.reduce(terms[whole * block :], axis=0, out=parts[first + whole])
        finally:
            spare.append(lent)

    try:
        over_batch(np, chunks, mat.nbytes, run, 1, blas=False)
    finally:
        for lent in spare:
            SCRATCH.give(*lent)
    parts += 0  # as _running_sums leaves each block's sum
    return _running_sums(parts, axis=0)


def _lane_sum(lanes: np.ndarray) -> np.ndarray:
    """Horizontal sum of packets (rows of `lanes`): halves added until two remain, then
    (l0 + l2) + (l1 + l3) for four lanes, l0 + l1 for two (Eigen's predux)."""
    while lanes.shape[1] > 4:
        half = lanes.shape[1] // 2
        lanes = lanes[:, :half] + lanes[:, half:]
    if lanes.shape[1] == 4:
        return (lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3])
    return lanes[:, 0] + lanes[:, 1]


def _row_major(mat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """out[n] = sum_k mat[n, k] * vec[k], as Eigen's row-major GEMV sums it."""
    rows, depth = mat.shape
    lanes = _PACKET_BYTES // mat.dtype.itemsize
    full = depth - depth % lanes
    if full:
        steps = full // lanes
        terms = (mat[:, :full] * vec[:full]).reshape(rows, steps, lanes)
        # Step-major (steps, rows * lanes): numpy adds whole steps in turn (each lane
        # sequential, as Eigen's), with long inner loops.
        by_step = terms.transpose(1, 0, 2).reshape(steps, rows * lanes)
        out = _lane_sum(np.add.reduce(by_step, axis=0).reshape(rows, lanes))
    else:
        out = _lane_sum(np.zeros((rows, lanes), mat.dtype))
    # Rows go in groups of 8 (4 when a row passes 32000 bytes), 4, 2, then one alone; only
    # the one alone takes a half packet before the scalar tail.
    alone = rows % 2 == 1
    tail_from = full
    if alone and depth - full >= lanes // 2:
        half = lanes // 2
        last = mat[rows - 1, full : full + half] * vec[full : full + half]
        out[rows - 1] += _lane_sum(last[None, :])[0]
        tail_from = full + half
    for k in range(full, depth):
        if alone and k < tail_from:
            out[: rows - 1] += mat[: rows - 1, k] * vec[k]
        else:
            out += mat[:, k] * vec[k]
    out += 0  # Eigen adds each sum to a zeroed output: no negative zeros
    return out


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray | None:
    """TF 1.15's bits for a matrix-vector MatMul of the operands as given (before transposing),
    or None where TF's kernel takes its general product (the caller multiplies as before)."""
    if a.dtype not in _DTYPES or b.dtype != a.dtype:
        return None
    m = a.shape[1] if transpose_a else a.shape[0]
    n = b.shape[0] if transpose_b else b.shape[1]
    depth = b.shape[1] if transpose_b else b.shape[0]
    if depth == 0 or m == 0 or n == 0 or depth * m * n > MAX_WORK:
        return None
    row_major = (m == 1 and transpose_b) or (n == 1 and m != 1 and not transpose_a)
    if row_major and depth * m * n > MAX_ROW_MAJOR_WORK:
        return None
    if m == 1:
        vec = a.reshape(-1)
        if not transpose_b:
            return _col_major(vec, b, n).reshape(1, n)
        return _row_major(b, vec).reshape(1, n)
    if n == 1:
        if transpose_a:
            return _col_major(b.reshape(-1), a, m).reshape(m, 1)
        return _row_major(a, b.reshape(-1)).reshape(m, 1)
    return None
