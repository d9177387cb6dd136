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


@pytest.mark.parametrize("prompt", ["root@5561000296a4:~/testsuite# nvidia-smi", "user@3f4e5a6b7c8d:/workspace$ ls"])
def test_a_prompt_whose_host_is_a_container_id_says_container(prompt):
    """Docker names a container's host after the first 12 hex digits of its id."""
    ctx = diagnose.explain(prompt + "\nFailed to initialize NVML: Driver/library version mismatch\n", None).context
    assert ctx.container and "host name" in ctx.container.how, ctx.as_dict()


@pytest.mark.parametrize("prompt", ["user@ubuntu-server:~$ nvidia-smi", "root@gpu01:/data# nvidia-smi",
                                    "mail me at admin@deadbeefcafe1:/x"])
def test_a_prompt_with_another_host_name_is_no_container(prompt):
    ctx = diagnose.explain(prompt + "\nFailed to initialize NVML: Driver/library version mismatch\n", None).context
    assert not ctx.container, ctx.as_dict()
