"""The matrix as plain-dict facts: what the standard-library doctor reads (and its standalone copy carries)."""

from __future__ import annotations

from builder.matrix.model import Matrix, version_key


def facts_from_matrix(matrix: Matrix) -> dict:
    """What doctor needs from the matrix, as JSON-ready data (the schema doctor.py reads)."""
    envs = {}
    for env in matrix.envs.values():
        envs[env.name] = {
            "tensorflow": env.tensorflow,
            "python_min": env.python_min,
            "python_max": env.python_max,
            "cuda": env.cuda.version,
            "cuda_full": env.cuda.full,
            "cudnn": env.cudnn,
            "sonames": list(env.sonames),
            "optional_sonames": list(env.optional_sonames),
            "shims": [s.as_dict() for s in env.shims],
            "lib_dirs": list(env.cuda.ubuntu.lib_dirs) if env.cuda.ubuntu else [],
            "pins": dict(env.pins),  # explain names the numpy/protobuf pin of the environment's lock
        }
    for env in matrix.envs.values():
        # The DLL names of native Windows (matrix.yaml sonames.<set>.windows and windows_optional), under the
        # keys doctor reads; without them doctor derives the names from the sonames.
        if env.windows_dlls:
            envs[env.name]["windows_sonames"] = list(env.windows_dlls)
            envs[env.name]["windows_optional"] = list(env.windows_optional_dlls)
    cuda = {v: {"full": s.full, "driver_min": dict(s.driver_min)} for v, s in matrix.cuda.items()}
    for v, s in matrix.cuda.items():
        # TF 2.2 on Windows with CUDA 10.2: the DLLs the setup script copies under the names TF asks for
        if s.windows and s.windows.copies:
            cuda[v]["windows_copies"] = [{"from": c.source, "to": c.to} for c in s.windows.copies]
    out = {"schema": 1, "envs": envs, "cuda": cuda}
    # Every CUDA release's driver minimum, the stacks' and NVIDIA's table's; the first CUDA of each GPU generation
    drivers = {v: {"linux": s.driver_min["linux"], "windows": s.driver_min["windows"]} for v, s in matrix.cuda.items()}
    drivers.update(matrix.nvidia.driver_min)
    out["cuda_drivers"] = dict(sorted(drivers.items(), key=lambda kv: version_key(kv[0])))
    out["first_cuda_for_arch"] = dict(matrix.nvidia.first_cuda_for_arch)
    out["last_cuda_for_arch"] = dict(matrix.nvidia.last_cuda_for_arch)
    out["cuda_for_ptx_isa"] = dict(matrix.nvidia.cuda_for_ptx_isa)
    out["nvenc_driver_min"] = dict(matrix.nvidia.nvenc_driver_min)
    # TensorFlow's tested configuration of every release line, oldest first: its Python ranges, CUDA and cuDNN
    out["tf_tested"] = {line: {"python": list(row.python), "windows_python": list(row.windows_python),
                               "cuda": row.cuda, "cudnn": row.cudnn}
                        for line, row in sorted(matrix.tensorflow.items(), key=lambda kv: version_key(kv[0]))}
    if matrix.wsl:
        out["wsl"] = {key: getattr(matrix.wsl, key) for key in ("windows_build_min", "driver_min_windows", "lib_dir",
                                                                "linux_driver_packages", "kernel_min")}
    return out
