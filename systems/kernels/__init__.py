"""numba-compiled kernels: functions of contiguous arrays only, no Python objects.

Each file holds one algorithm. Kernels are deterministic (no fastmath, no
parallel reductions), so the same inputs give the same outputs bit for bit.
"""
