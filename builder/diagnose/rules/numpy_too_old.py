"""numpy older than the one TF was compiled against (numpy's C-API check: "module compiled against API version X
but this version of numpy is Y"; numpy < 1.16 lacks numpy.core._multiarray_umath)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way

ID = "numpy-too-old"


def check(log, ctx):
    evidence = log.all("numpy_old")[:1]
    if not evidence or log.has("numpy2"):
        return None
    pin = ((ctx.env_facts() or {}).get("pins") or {}).get("numpy")
    cause = t("This TensorFlow was compiled against a newer numpy than the one Python imports (often an old "
              "distribution or system numpy found before the one pip installed).")
    if pin:
        fix = t("pip install \"numpy=={pin}\" in that environment (the pin of tfenv's {env} lock), and remove the "
                "older copy that comes first (`python -c \"import numpy; print(numpy.__file__)\"` shows which)",
                pin=pin, env=ctx.env())
    else:
        fix = t("upgrade numpy in that environment (`pip install -U \"numpy>=1.16,<2\"`) and remove the older copy "
                "that comes first (`python -c \"import numpy; print(numpy.__file__)\"` shows which)")
    return Finding(ID, t("numpy is too old for this TensorFlow"), lines(evidence), cause, fix,
                   tfenv_way(ctx) + "; " + t("every tfenv environment has a tested pin set"), rank=20,
                   supersedes=("numpy2",))
