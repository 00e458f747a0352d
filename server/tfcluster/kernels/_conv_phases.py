"""The input gradient of a strided convolution by phases of the stride: one im2col and one
matrix product, instead of a product followed by a scatter over the kernel's taps.

With stride s and a filter of k = s * ka taps along a dim, the input rows y = s * Y + p
(p the phase, 0 <= p < s) receive dy[Y - a] * f[p + s * a] for a < ka: for every phase the
same ka-tap window of out_backprop (padded by ka - 1 before), each phase with its own
sub-filter. So one im2col of the padded out_backprop, of ka taps per dim and stride 1,
times one matrix whose columns are every phase's flipped sub-filter, gives all the input
rows at once, phase by phase; they are copied into place (s^n strided copies).

A DQN's 4x4 stride-2 layer (20x20x32 in, 9x9x64 out) spent as long on the scatter's 16
strided additions (rows of 32 numbers) as on its product. Here the product does ~25% more
multiply-adds (the windows at the border read the padding), but in one long-sided product
and with im2col rows of ka * co contiguous numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels._window import Window, copy_runs, padded, patches

# Input channels from which the phases' product beats the scatter: the scatter's additions
# grow with ci alone, the phases' extra multiply-adds with ci * co.
_MIN_CHANNELS = 16


def applicable(win: Window, ksizes: list[int], ci: int) -> bool:
    """Whether the input gradient goes by phases: a stride above 1 that divides the
    filter's size along every dim, no dilation, enough input channels."""
    return (
        ci >= _MIN_CHANNELS
        and any(s > 1 for s in win.strides)
        and all(d == 1 for d in win.dilations)
        and all(k % s == 0 for k, s in zip(ksizes, win.strides))
    )


def _phase_filter(xp: Any, f: Any, strides: list[int], ctype: Any) -> Any:
    """f [*k, ci, co] as the (prod(ka) * co, prod(s) * ci) matrix of the phases' products:
    row (u..., co) is window tap u (tap a = ka - 1 - u of the sub-filter), column (p..., ci)
    the phase."""
    n = len(strides)
    ci, co = f.shape[n], f.shape[n + 1]
    ka = [k // s for k, s in zip(f.shape[:n], strides)]
    split = f.reshape(*(d for a, s in zip(ka, strides) for d in (a, s)), ci, co)
    flipped = split[tuple(slice(None, None, -1 if i % 2 == 0 else 1) for i in range(2 * n))]
    order = [2 * i for i in range(n)] + [2 * n + 1] + [2 * i + 1 for i in range(n)] + [2 * n]
    mat = xp.ascontiguousarray(flipped.transpose(order))
    return mat.reshape(math.prod(ka) * co, math.prod(strides) * ci).astype(ctype, copy=False)


def backprop_input(
    xp: Any,
    win: Window,
    dyl: Any,
    f: Any,
    sizes: list[int],
    pads: list[tuple[int, int]],
    ctype: Any,
    patch_products: Callable[..., list[Any]],
    block_bytes: int,
) -> Any:
    """dx (channels-last, the compute type) of the convolution whose out_backprop is dyl
    (channels-last), filter f and input spatial sizes `sizes` padded by `pads`.
    patch_products: conv's im2col-and-product driver (blocks of the batch, every core)."""
    n = win.n
    strides = win.strides
    batch, outs = dyl.shape[0], list(dyl.shape[1:-1])
    ci = f.shape[n]
    ka = [k // s for k, s in zip(f.shape[:n], strides)]
    # Phase rows Y of every padded input row s * Y + p.
    rows = [-(-(size + a + b) // s) for size, (a, b), s in zip(sizes, pads, strides)]
    dy_pads = [(k - 1, r - o) for k, r, o in zip(ka, rows, outs)]
    wmat = _phase_filter(xp, f, strides, ctype)
    phases = math.prod(strides)
    out = xp.empty((batch * math.prod(rows), phases * ci), ctype)
    with padded(xp, dyl.astype(ctype, copy=False), dy_pads) as dyp:
        patch_products(
            xp,
            patches(xp, dyp, rows, ka, win, strides=[1] * n),
            ctype,
            lambda b, r, cols: xp.matmul(cols, wmat, out=out[r]),
            block_bytes,
            out.shape[0] * wmat.size,
        )
    by_phase = out.reshape(batch, *rows, *strides, ci)
    dx = xp.empty((batch, *sizes, ci), ctype)
    for phase in np.ndindex(*strides):
        dest, src = [slice(None)], [slice(None)]
        for p, s, size, (before, _) in zip(phase, strides, sizes, pads):
            first = -(-(before - p) // s)  # the first phase row inside the input
            last = (size - 1 + before - p) // s
            if last < first:
                break
            dest.append(slice(s * first + p - before, size, s))
            src.append(slice(first, last + 1))
        else:
            copy_runs(xp, dx[tuple(dest)], by_phase[(*src, *phase, slice(None))])
    return dx
