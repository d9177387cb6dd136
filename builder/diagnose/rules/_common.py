"""What several rules say the same way: the tfenv way for a platform, CUDA install advice, line lists, the
harmless-note rule shape, and the stand-ins matrix.yaml knows (a Linux link or a Windows copy that lets one CUDA
release serve another's names)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.versions import vkey

WIN_TOOLKIT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v{}\bin"
LAST_WINDOWS_GPU_TF = "2.10"


def wsl_facts(ctx):
    """matrix.yaml's wsl: section as the facts carry it (`tfenv explain` and the web page pass them, the standalone
    doctor bundles them); empty without facts."""
    return (ctx.facts or {}).get("wsl") or {}


def wsl_lib(ctx):
    """WSL's library folder, where the Windows driver's libcuda is (wsl.lib_dir); "?" without facts, as the other
    wsl facts read."""
    return wsl_facts(ctx).get("lib_dir", "?")


# Windows' FormatMessage text for 126 (ERROR_MOD_NOT_FOUND), as loaders that print the text print it (Julia's dlopen)
_MOD_NOT_FOUND = ("specified module could not be found", "找不到指定的模块")


def module_not_found(log, failures):
    """Windows error 126 on these failed libraries: the DLL, or a DLL it links, was not found. The code as cuDNN and
    CPython print it, or FormatMessage's text as the loader's reason."""
    return log.has("win_error_126") or any(
        text in (ev.groups[1] or "") for ev in failures if len(ev.groups) > 1 for text in _MOD_NOT_FOUND)


def lines(events):
    return [ev.line for ev in events if ev is not None]


def harmless_note(rule_id, event, most, rank, words):
    """The check of a rule that notes lines TF logs although nothing is wrong: the first `most` lines of `event`
    as a harmless finding. words() gives (title, cause, fix); it runs at each check, so t() reads the language
    then, and its literal msgids stay in the rule's module where the i18n test collects them."""
    def check(log, ctx):
        evidence = log.all(event)[:most]
        if not evidence:
            return None
        title, cause, fix = words()
        return Finding(rule_id, title, lines(evidence), cause, fix, "", harmless=True, rank=rank)

    return check


def tfenv_way(ctx, windows=False):
    """How tfenv gets around the problem on the log's platform (windows: say it the Windows way regardless)."""
    env = ctx.env() or "ENV"
    doctor = t("`tfenv doctor --env {env}` then checks this machine", env=env)
    pick = "" if ctx.envs else " " + t("(pick ENV with `tfenv matrix`)")
    if ctx.windows or windows:
        if ctx.tf and vkey(ctx.tf.value) > vkey(LAST_WINDOWS_GPU_TF):
            way = t("`tfenv wsl {env}` sets up the environment in WSL2 (TF {tf} has no native Windows GPU build)",
                    env=env, tf=ctx.tf.value)
        else:
            way = t("`tfenv windows {env}` writes a PowerShell setup with the DLLs {tf} loads, or `tfenv wsl {env}` "
                    "for WSL2", env=env, tf=t("TF {tf}", tf=ctx.tf.value) if ctx.tf else t("its TF"))
    elif ctx.wsl:
        way = t("`tfenv wsl {env}` writes the WSL2 setup with the right CUDA and cuDNN", env=env)
    else:
        way = t("`tfenv run {env} -- python your_script.py` runs it in an image with the matching CUDA and cuDNN "
                "(the host needs only the NVIDIA driver)", env=env)
    return way + pick + "; " + doctor


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
    return t("install the CUDA {release} toolkit (the DLL name says the release: cudart64_101 is 10.1, cudart64_110 "
             "any 11.x) and add its bin folder to PATH ({folder}), then open a new terminal and check with `where "
             "{first}`. CUDA versions can be installed side by side; only the one TF asks for helps. Python >= 3.8 "
             "restricts the DLL search for its own imports, not for TF's loader: PATH is what counts "
             "(os.add_dll_directory alone does not help)", release=release, folder=WIN_TOOLKIT.format(release),
             first=first)


def stand_ins(ctx, names):
    """[(installed name, name TF asks for)] that make the installed CUDA serve the missing `names`: the
    environment's soname links on Linux (matrix.yaml envs.<env>.shims), the DLL copies of the installed CUDA
    stack on Windows (cuda.<v>.windows.copies, as windows/<env>/setup.ps1 makes them)."""
    facts, present = ctx.facts or {}, ctx.cuda_present.value
    wanted = {n.lower() for n in names}
    if ctx.windows:
        copies = ((facts.get("cuda") or {}).get(present) or {}).get("windows_copies") or []
        return [(c["from"], c["to"]) for c in copies if c["to"].lower() in wanted]
    found = []
    for env in (facts.get("envs") or {}).values():
        if present and env.get("cuda") != present:
            continue
        found += [(s["to"], s["link"]) for s in env.get("shims", []) if s["link"].lower() in wanted]
    return list(dict.fromkeys(found))
