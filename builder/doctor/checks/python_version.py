"""This Python against the target environment's TensorFlow: can pip install that wheel here."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import OK, WARN, Check, vkey

ID = "python"


def check(ctx) -> List[Check]:
    if not ctx.env:
        return []
    e = ctx.facts["envs"][ctx.env]
    py = ".".join(map(str, ctx.host.python[:2]))
    fields = {"python": py, "tf": e["tensorflow"], "range": "{}-{}".format(e["python_min"], e["python_max"])}
    if vkey(e["python_min"]) <= ctx.host.python[:2] <= vkey(e["python_max"]):
        return [Check(ID, OK, t("Python {python} is in TensorFlow {tf}'s {range}", **fields))]
    return [Check(ID, WARN, t("Python {python} is outside TensorFlow {tf}'s {range}: pip cannot install it here",
                              **fields),
                  t("use Python {range} in a venv, or the Docker image", range=fields["range"]))]
