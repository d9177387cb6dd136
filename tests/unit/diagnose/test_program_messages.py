"""tfenv explain on the messages the programs themselves print (tests/unit/diagnose/program_messages/<area>.yaml).

Each file lists the user-facing messages of the programs in one area (the loaders, the driver and the CUDA
runtime, the container runtimes and WSL), taken from their sources, each entry as

    - program: nvidia-smi
      source: "<owner/repo> <path> @<commit or stored version>"
      message: "<the message as the program prints it, format arguments filled with realistic values>"
      platform: linux | windows | container | wsl2
      cause: <a rule id>
      keys: [<words the fix must contain; one is enough>]
      command: <optional: the command line that printed it, when that is not a Python program>
      alone: <optional: the cause the message alone gives, where it reads the same on another platform (a
              container's CUDA error is a host's too, with the host's fix): only that cause is checked alone, and
              the paste must still give `cause` with the platform's fix>

and every entry is scored twice with the one scorer of the corpus (explain_scoring.judge): the message alone, and
the message inside a short paste typical of its platform (a prompt line, a traceback frame, the next prompt). Both
must put `cause` first, with a fix naming one of `keys` and no other platform's advice."""

from __future__ import annotations

import pytest
import yaml

from builder import diagnose
from builder.diagnose import rules
from builder.matrix.facts import facts_from_matrix
from tests.helpers import UNIT, matrix
from tests.unit.diagnose.explain_scoring import PLATFORMS, explain_as_user, judge

HERE = UNIT / "diagnose" / "program_messages"
FILES = sorted(HERE.glob("*.yaml"))
ENTRIES = [(p.stem, n, e) for p in FILES for n, e in enumerate(yaml.safe_load(p.read_text(encoding="utf-8")) or [])]
FIELDS = {"program", "source", "message", "platform", "cause", "keys"}
OPTIONAL = {"command", "alone"}

# Where a user pastes from, per platform: the prompt, the folder of their script, the command that shows the
# platform as it would in a real paste (a container's messages come through `docker run`)
PROMPTS = {
    "linux": ("user@ubuntu:~/project$ ", "/home/user/project/", "python3 train.py"),
    "windows": ("(tf) C:\\Users\\user\\project>", "C:\\Users\\user\\project\\", "python train.py"),
    "container": ("user@ubuntu:~/project$ ", "/workspace/",
                  "docker run --gpus all --rm -v $PWD:/workspace -w /workspace tensorflow/tensorflow:2.10.0-gpu "
                  "python train.py"),
    "wsl2": ("user@DESKTOP-4K2J9QX:/mnt/c/Users/user/project$ ", "/mnt/c/Users/user/project/", "python3 train.py"),
}


def in_context(entry):
    """The message as a user pastes it: after the command and the traceback frame that led to it (a program's
    own command line instead when the entry names one), with the next prompt after it."""
    prompt, folder, python = PROMPTS[entry["platform"]]
    command = entry.get("command")
    if command:
        lines = [prompt + command, entry["message"].rstrip("\n"), prompt + "echo $?", "1", prompt]
    else:
        lines = [prompt + python, "Traceback (most recent call last):",
                 f'  File "{folder}train.py", line 8, in <module>', "    gpus = tf.config.list_physical_devices('GPU')",
                 entry["message"].rstrip("\n"), prompt]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def entry_id(entry):
    return f"{entry[0]}-{entry[1]}"


def test_every_area_has_its_file():
    assert FILES, f"no program message files in {HERE}"


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_every_entry_is_complete(entry):
    _, _, e = entry
    assert set(e) >= FIELDS and set(e) <= FIELDS | OPTIONAL, sorted(set(e) ^ FIELDS)
    assert e["platform"] in PLATFORMS, e["platform"]
    assert e["cause"] in rules.IDS, e["cause"]
    assert e["keys"] and all(isinstance(k, str) and k for k in e["keys"]), e["keys"]
    # "<owner/repo> <path> @<version>": where the message was read, so that anyone can read it again
    repo, _, rest = str(e["source"]).partition(" ")
    assert repo.count("/") == 1 and rest and " @" in f" {rest}", e["source"]
    assert str(e["message"]).strip(), e
    assert e.get("alone", "nothing") in [*rules.IDS, "nothing"], e.get("alone")


def test_no_message_is_listed_twice():
    seen = [(e["message"].strip(), e["platform"]) for _, _, e in ENTRIES]
    assert len(seen) == len(set(seen)), sorted(m for m in seen if seen.count(m) > 1)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_each_paste_shows_its_platform(platform, facts):
    """The pastes themselves say where they ran (a neutral message inside), so an entry that fails in context
    fails on its message, not on a frame that misleads. A Linux prompt and paths are the same in WSL 2: they say
    "Linux or WSL 2", and the scorer then gives the platform as a user would (--platform linux)."""
    paste = in_context({"platform": platform, "message": "ValueError: bad input shape"})
    ctx = diagnose.explain(paste, facts).context
    want = {"container": "linux"}.get(platform, platform)
    got = ctx.platform.value or ("linux" if ctx.posix and platform == "linux" else "")
    assert got == want, (platform, ctx.as_dict())
    assert bool(ctx.container) == (platform == "container"), ctx.as_dict()


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_the_message_alone(entry, facts):
    _, _, e = entry
    case = dict(e, log=e["message"])
    if "alone" in e:  # the platform's own reading needs the paste; alone it reads as the other platform's cause
        result = explain_as_user(case, facts)
        got = result.findings[0].id if result.findings else "nothing"
        assert got == e["alone"], f"{e['program']}: {e['message']!r} -> {got}, not {e['alone']}"
        return
    got, why = judge(case, facts)
    assert not why, f"{e['program']}: {e['message']!r} -> {got}: {why}"


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_the_message_in_a_paste(entry, facts):
    _, _, e = entry
    case = dict(e, log=in_context(e))
    got, why = judge(case, facts)
    assert not why, f"{e['program']}: in context {case['log']!r} -> {got}: {why}"
