"""builder.docker.images and builder.docker.base without a daemon: the build context, arguments, options, and
base trimming."""

from __future__ import annotations

import io
import tarfile

import pytest

from builder.core import files, progress
from builder.docker import base, images


def test_context_holds_the_dockerfile_and_optional_ca_with_fixed_metadata():
    with tarfile.open(fileobj=images.context_tar("FROM scratch\n")) as plain:
        assert plain.getnames() == ["Dockerfile"]
    with tarfile.open(fileobj=images.context_tar("FROM scratch\n", b"-----BEGIN CERTIFICATE-----\n")) as with_ca:
        assert with_ca.getnames() == ["Dockerfile", "extra-ca.crt"]
        assert with_ca.extractfile("extra-ca.crt").read().startswith(b"-----BEGIN")
        assert {(i.mtime, i.mode) for i in with_ca.getmembers()} == {(0, 0o644)}
    # Same bytes every time: the context must never be the reason for a cache miss.
    assert images.context_tar("x").getvalue() == images.context_tar("x").getvalue()


def test_build_args_pass_mirrors_only_when_given():
    assert images.build_args("tfenv/debian:bullseye", images.BuildOptions()) == {"BASE_IMAGE": "tfenv/debian:bullseye"}
    opts = images.BuildOptions(apt_mirror="http://mirror.example.org/debian",
                               pip_index_url="https://pypi.example.org/simple")
    assert images.build_args("b", opts) == {
        "BASE_IMAGE": "b",
        "TFENV_APT_MIRROR": "http://mirror.example.org/debian",
        "PIP_INDEX_URL": "https://pypi.example.org/simple",
    }


def test_ca_cert_must_be_a_readable_pem(tmp_path):
    with pytest.raises(files.BadOption, match="cannot read"):
        files.read_ca_cert(str(tmp_path / "missing.crt"))
    junk = tmp_path / "junk.crt"
    junk.write_text("not a certificate")
    with pytest.raises(files.BadOption, match="not a PEM certificate"):
        files.read_ca_cert(str(junk))
    good = tmp_path / "ok.crt"
    good.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    assert files.read_ca_cert(str(good)).startswith(b"-----BEGIN")


def test_missing_base_hints_say_how_to_make_it(m):
    debian = m.target("tf29", "debian11")
    assert images.missing_base_hint(debian, "tfenv/debian:bullseye") == "create it with `tfenv base debian11`"
    assert "--tag mirror.example.org/debian:11" in images.missing_base_hint(debian, "mirror.example.org/debian:11")
    ubuntu = m.target("tf29", "ubuntu20.04")
    hint = images.missing_base_hint(ubuntu, "ubuntu:20.04")
    assert "docker pull ubuntu:20.04" in hint and "docker load" in hint


def test_plain_display_keeps_only_the_current_steps_tail():
    out = io.StringIO()
    d = progress.Display(out)
    d.step(1, 2, "RUN a")
    d.output("from step one")
    d.step(2, 2, "RUN b")
    for i in range(40):
        d.output(f"line {i}")
    assert list(d.tail)[0] == "line 15" and len(d.tail) == progress.TAIL_LINES
    assert "[2/2] RUN b" in out.getvalue()


def test_rendered_dockerfile_keeps_its_own_text_out_of_the_main_stage(m):
    """The CA stage: the main stage's first layer must not depend on the Dockerfile's text, or a TF version
    change would invalidate the OS and CUDA layers too."""
    from builder.render import dockerfiles

    text = dockerfiles.render_target(m.target("tf29", "debian11"), m).text
    main = text.split("AS tensorflow", 1)[1]
    assert "COPY Dockerfile" not in main and "COPY --from=ca /ca/ /tmp/tfenv-ca/" in main
    assert text.index("AS ca") < text.index("AS tensorflow")


# --- tfenv base: what the trimmed root looks like (a directory tree stands in for debootstrap's output) ---


def _fake_root(tmp_path):
    root = tmp_path / "root"
    files = ["var/cache/apt/archives/python3.9_3.9.2-1_amd64.deb", "var/cache/apt/pkgcache.bin",
             "var/lib/apt/lists/deb_dists_bullseye_InRelease", "usr/share/doc/bash/copyright",
             "usr/share/doc/bash/changelog.gz", "usr/share/man/man1/bash.1.gz", "usr/share/locale/de/LC_MESSAGES/x.mo",
             "usr/share/locale/locale.alias", "usr/bin/bash", "dev/null", "proc/.keep", "etc/apt/apt.conf.d/.keep"]
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x")
    return root


def test_trim_removes_caches_docs_and_configures_apt_and_dpkg(tmp_path):
    root = _fake_root(tmp_path)
    base.trim(root)
    left = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert "var/cache/apt/archives/python3.9_3.9.2-1_amd64.deb" not in left
    assert "var/cache/apt/pkgcache.bin" not in left and "var/lib/apt/lists/deb_dists_bullseye_InRelease" not in left
    assert "usr/share/doc/bash/changelog.gz" not in left and "usr/share/man/man1/bash.1.gz" not in left
    assert "usr/share/doc/bash/copyright" in left and "usr/share/locale/locale.alias" in left
    assert "usr/bin/bash" in left
    clean = (root / "etc/apt/apt.conf.d/docker-clean").read_text()
    assert 'Dir::Cache::pkgcache "";' in clean and "DPkg::Post-Invoke" in clean and "APT::Update::Post-Invoke" in clean
    assert "path-exclude /usr/share/doc/*" in (root / "etc/dpkg/dpkg.cfg.d/docker-exclude").read_text()


def test_rootfs_tar_leaves_dev_and_proc_empty(tmp_path):
    root = _fake_root(tmp_path)
    out = tmp_path / "rootfs.tar"
    base.write_tar(root, out)
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
    assert "./usr/bin/bash" in names and "./dev" in names and "./proc" in names
    assert "./dev/null" not in names and "./proc/.keep" not in names


def test_debootstrap_command_uses_its_own_default_mirror_unless_given(tmp_path):
    cmd = base.debootstrap_command("debootstrap", "bullseye", tmp_path, None)
    assert cmd == ["debootstrap", "--variant=minbase", "--components=main,contrib,non-free",
                   f"--keyring={base.KEYRING}", "bullseye", str(tmp_path)]
    assert base.debootstrap_command("d", "bullseye", tmp_path, "http://mirror.example.org/debian")[-1] == (
        "http://mirror.example.org/debian")


def test_base_without_debootstrap_says_how_to_install_it(monkeypatch):
    monkeypatch.setenv("PATH", "")
    if not hasattr(base.os, "geteuid") or base.os.geteuid() != 0:
        with pytest.raises(base.BaseError, match="needs root|needs Linux"):
            base.check_host()
    else:
        with pytest.raises(base.BaseError, match="apt-get install debootstrap"):
            base.check_host()
