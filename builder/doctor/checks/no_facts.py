"""Without the matrix facts only the host is checked: say so, and where the facts come from."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import WARN, Check

ID = "facts"


def check(ctx) -> List[Check]:
    if ctx.facts:
        return []
    return [Check(ID, WARN, t("no matrix facts: only the host was checked"),
                  t("use `tfenv doctor`, or a copy from `tfenv doctor --write-standalone FILE`"))]
