"""numpy too new for the installed TF (numpy 2 at import, or 1.20/1.24 API changes in old TF)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way

ID = "numpy2"


def check(log, ctx):
    evidence = [ev for kind in ("numpy2", "numpy_abi", "numpy_symbolic", "numpy_alias") for ev in log.all(kind)[:1]]
    if not evidence:
        return None
    e = ctx.env_facts()
    pin = (e or {}).get("pins", {}).get("numpy")
    if log.has("numpy2", "numpy_abi"):
        cause = t("This TensorFlow was compiled against NumPy 1.x; numpy 2 is installed, and the two cannot load "
                  "together.")
        default = "numpy<2"
    elif log.has("numpy_symbolic"):
        cause = t("TF 2.4 and older break with numpy 1.20 and later (symbolic tensors are no longer converted).")
        default = "numpy<1.20"
    else:
        cause = t("numpy 1.24 removed the np.object/np.bool aliases this TF (or its code) still uses.")
        default = "numpy<1.24"
    spec = f"numpy=={pin}" if pin else default
    if pin:
        fix = t("`pip install \"{spec}\"` in that environment (the pin of tfenv's {env} lock); keep the TF version",
                spec=spec, env=ctx.env())
    else:
        fix = t("`pip install \"{spec}\"` in that environment; keep the TF version", spec=spec)
    if pin and default == "numpy<2":
        fix += " " + t("(any \"numpy<2\" works too)")
    return Finding(ID, t("numpy is too new for this TensorFlow"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx) + "; " + t("every tfenv environment has a tested pin set"), rank=20)
