"""Where a log ran, seen from the container side (builder.diagnose.context._container): the prefixes that Compose
puts before each service's lines, and the engines whose commands start containers."""

import pytest

from builder import diagnose


@pytest.mark.parametrize("log, service", [
    ("tf_1  | 2021-03-02 10:11:12: I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary\n",
     "tf_1"),  # docker-compose 1.x: name_N
    ("tf-1  | 2024-03-02 10:11:12: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary\n",
     "tf-1"),  # Compose v2: name-N
])
def test_compose_service_prefixes_say_container(log, service):
    ctx = diagnose.explain(log, None).context
    assert ctx.container and service in ctx.container.how, ctx.as_dict()


def test_a_podman_run_says_container():
    log = "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\nError: something failed\n"
    assert diagnose.explain(log, None).context.container


def test_a_table_row_is_no_compose_prefix():
    log = "| GPU  Name        Persistence-M| Bus-Id        Disp.A |\n|   0  Tesla T4            Off  |\n"
    assert not diagnose.explain(log, None).context.container
