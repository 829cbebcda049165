"""Kernels: one module per family, each with a NumPy and a CuPy implementation."""
