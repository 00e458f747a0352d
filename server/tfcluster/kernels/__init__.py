"""Kernels: one registry from (op type, device type) to a kernel, and one body per op written
over the array module (numpy on the CPU, cupy on a GPU), one op family per module."""
