"""What several rules say the same way: the tfenv way for a platform, CUDA install advice, line lists."""

from builder.diagnose.versions import vkey

WIN_TOOLKIT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{}\bin"
LAST_WINDOWS_GPU_TF = "2.10"


def lines(events):
    return [ev.line for ev in events if ev is not None]


def env_text(ctx):
    """'tf22' or 'tf22 (or tf22-cuda101)'; a placeholder when nothing fits."""
    if not ctx.envs:
        return "ENV"
    return ctx.envs[0] + (" (or {})".format(", ".join(ctx.envs[1:3])) if len(ctx.envs) > 1 else "")


def tfenv_way(ctx, windows=False):
    """How tfenv gets around the problem on the log's platform (windows: say it the Windows way regardless)."""
    env = ctx.env() or "ENV"
    pick = "" if ctx.envs else " (pick ENV with `tfenv matrix`)"
    doctor = f"; `tfenv doctor --env {env}` then checks this machine"
    if ctx.windows or windows:
        if ctx.tf and vkey(ctx.tf.value) > vkey(LAST_WINDOWS_GPU_TF):
            return (f"`tfenv wsl {env}` sets up the environment in WSL2 (TF {ctx.tf.value} has no native Windows GPU "
                    f"build){pick}{doctor}")
        return ("`tfenv windows {0}` writes a PowerShell setup with the DLLs {1} loads, or `tfenv wsl {0}` "
                "for WSL2{2}{3}".format(env, "TF " + ctx.tf.value if ctx.tf else "its TF", pick, doctor))
    if ctx.wsl:
        return f"`tfenv wsl {env}` writes the WSL2 setup with the right CUDA and cuDNN{pick}{doctor}"
    return (f"`tfenv run {env} -- python your_script.py` runs it in an image with the matching CUDA and cuDNN (the "
            f"host "
            f"needs only the NVIDIA driver){pick}{doctor}")


def cuda_for_tf(ctx):
    """The CUDA release the log's TF wants: from the library names, else from the matrix."""
    if ctx.cuda_wanted:
        return ctx.cuda_wanted.value
    e = ctx.env_facts()
    return e["cuda"] if e else ""


def cudnn_for_tf(ctx):
    e = ctx.env_facts()
    return e["cudnn"] if e else ""


def windows_cuda_install(cuda, names):
    """Native Windows: which toolkit, PATH, and the check."""
    release = "11.2" if cuda in ("11.x", "") else cuda
    first = names[0] if names else "cudart64_110.dll"
    return (f"install the CUDA {release} toolkit (the DLL name says the release: cudart64_101 is 10.1, cudart64_110 "
            f"any 11.x) "
            f"and add its bin folder to PATH ({WIN_TOOLKIT.format(release)}), then open a new terminal and check "
            f"with `where {first}`. CUDA versions "
            "can be installed side by side; only the one TF asks for helps. Python >= 3.8 restricts the DLL search "
            "for its own imports, not for TF's loader: PATH is what counts (os.add_dll_directory alone does not "
            "help)")
