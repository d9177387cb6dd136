"""The installed TensorFlow: a GPU build, the target environment's line, a line the matrix has."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, WARN, Check, vkey
from builder.doctor.support import env_for_tensorflow

ID = "tensorflow"


def check(ctx) -> List[Check]:
    facts, env = ctx.facts, ctx.env
    if not (facts and ctx.tf):
        return []
    dist, version = ctx.tf
    if dist == "tensorflow-cpu":
        return [Check(ID, FAIL, t("{dist} {version} is installed: a build without GPU support", dist=dist,
                                  version=version),
                      t("{uninstall}, then install tensorflow (or tensorflow-gpu for 2.2-2.3)",
                        uninstall="pip uninstall tensorflow-cpu"))]
    if env and vkey(facts["envs"][env]["tensorflow"])[:2] != vkey(version)[:2]:
        wanted = facts["envs"][env]["tensorflow"]
        return [Check(ID, WARN, t("{dist} {version} is installed, {env} is TensorFlow {wanted}", dist=dist,
                                  version=version, env=env, wanted=wanted),
                      t("check with --env for {version}'s line, or install {requirement}", version=version,
                        requirement="tensorflow==" + wanted))]
    if not env_for_tensorflow(facts, version):
        return [Check(ID, WARN, t("{dist} {version} is installed; the matrix has no environment for it",
                                  dist=dist, version=version),
                      t("use one of the matrix environments ({command})", command="tfenv matrix"))]
    return [Check(ID, OK, t("{dist} {version} installed", dist=dist, version=version))]
