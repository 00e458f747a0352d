"""What tf.test says about GPUs: tfcluster's GPUs are the CUDA devices cupy finds."""

from __future__ import annotations

import importlib.util

from tfcluster.runtime import gpu


def is_built_with_cuda() -> bool:
    """True when cupy (tfcluster's CUDA backend, the `gpu` extra) is installed."""
    return importlib.util.find_spec("cupy") is not None


def is_built_with_gpu_support() -> bool:
    return is_built_with_cuda()


def is_built_with_rocm() -> bool:
    return False


def is_gpu_available(
    cuda_only: bool = False, min_cuda_compute_capability: tuple[int, int] | None = None
) -> bool:
    """True when this process sees a GPU (of at least that compute capability, if given)."""
    del cuda_only  # every GPU tfcluster uses is a CUDA device
    gpus = gpu.local_gpus()
    if not gpus or min_cuda_compute_capability is None:
        return bool(gpus)
    import cupy

    for g in gpus:
        capability = cupy.cuda.Device(g.index).compute_capability  # e.g. "80"
        if (int(capability[:-1]), int(capability[-1])) >= tuple(min_cuda_compute_capability):
            return True
    return False


def gpu_device_name() -> str:
    """'/device:GPU:0' when a GPU is there, else ''."""
    return "/device:GPU:0" if gpu.local_gpus() else ""
