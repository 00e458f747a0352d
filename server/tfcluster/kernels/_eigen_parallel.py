"""How Eigen's ThreadPoolDevice::parallelFor (behind TF 1.15's Shard and its Eigen-device
kernels) splits `n` items over a pool of `threads`: Eigen's cost model decides whether the
work is worth more than one thread, then CalculateParallelForBlock picks the block size.
Kernels whose result depends on that split (a Multinomial's Philox streams per block of rows,
BiasAddGrad's partial sums per block) repeat it to get TF's numbers."""

from __future__ import annotations

# Eigen's TensorCostModel constants (cycles).
_STARTUP_CYCLES = 100000.0
_PER_THREAD_CYCLES = 100000.0
_TASK_CYCLES = 40000.0
# Bytes loaded or stored cost 11 cycles per 64-byte line (Eigen's L2 estimate).
_CYCLES_PER_BYTE = 11.0 / 64.0


def cost_cycles(bytes_loaded: float, bytes_stored: float, compute_cycles: float) -> float:
    """TensorOpCost(bytes_loaded, bytes_stored, compute_cycles) in device cycles."""
    return (bytes_loaded + bytes_stored) * _CYCLES_PER_BYTE + compute_cycles


def wanted_threads(total_cycles: float, threads: int) -> int:
    """TensorCostModel::numThreads: the threads worth using for work of this many cycles."""
    return int(
        min(float(threads), max(1.0, (total_cycles - _STARTUP_CYCLES) / _PER_THREAD_CYCLES + 0.9))
    )


def parallel_for_blocks(n: int, cycles_per_item: float, threads: int) -> list[tuple[int, int]]:
    """The [start, limit) ranges parallelFor(n, cost, f) calls f with."""
    if n <= 1 or threads <= 1:
        return [(0, n)]
    if wanted_threads(n * float(cycles_per_item), threads) <= 1:
        return [(0, n)]
    # CalculateParallelForBlock: tasks of ~40000 cycles, at most 4 blocks per thread, then
    # coarser blocks while that keeps the threads as busy.
    task = cycles_per_item / _TASK_CYCLES
    block = int(min(n, max(-(-n // (4 * threads)), 1.0 / task if task else n)))
    max_block = min(n, 2 * block)
    count = -(-n // block)
    best = count / (-(-count // threads) * threads)
    prev = count
    while best < 1.0 and prev > 1:
        coarser = -(-n // (prev - 1))
        if coarser > max_block:
            break
        coarser_count = -(-n // coarser)
        prev = coarser_count
        efficiency = coarser_count / (-(-coarser_count // threads) * threads)
        if efficiency + 0.01 >= best:
            block, count = coarser, coarser_count
            best = max(best, efficiency)
    return [(i, min(i + block, n)) for i in range(0, n, block)]
