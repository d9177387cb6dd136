#!/usr/bin/env bash
# tfenv tf24: TensorFlow 2.4.4 with the GPU inside WSL2, without Docker.
# Rendered from matrix.yaml by `tfenv wsl tf24`: edit wsl/templates/, not this file.
#
# Run it inside the WSL2 distribution (Ubuntu-20.04, Ubuntu-18.04), or let setup.ps1 start it from Windows:
#   bash install.sh              preflight, install into a venv, then check it (run it again: it changes nothing)
#   bash install.sh --check      preflight only
#   bash install.sh --dry-run    print what it would do, change nothing
# Behind a TLS proxy or with a package mirror, pip reads PIP_CERT=/path/to/ca-bundle.crt and
# PIP_INDEX_URL=https://mirror.example.org/simple from the environment.
set -euo pipefail

readonly TFENV_ENV="tf24"
readonly TF_VERSION="2.4.4"
readonly CUDA_VERSION="11.0"
readonly CUDA_SOURCE="apt"   # pip: NVIDIA's wheels in the venv; apt: NVIDIA's repository, runtime libraries only
readonly PIP_VERSION="23.0.1"
readonly DRIVER_MIN="495.0"
# Simulation only: tfenv's own tests point TFENV_WSL_ROOT at a fake WSL tree (proc/version, dev/dxg,
# usr/lib/wsl/lib). On a real WSL2 system it is unset.
readonly WSL_ROOT="${TFENV_WSL_ROOT:-}"
readonly WSL_LIB="$WSL_ROOT/usr/lib/wsl/lib"
readonly MARK_BEGIN="# >>> tfenv $TFENV_ENV >>>"
readonly MARK_END="# <<< tfenv $TFENV_ENV <<<"
readonly SONAMES=(libcudart.so.11.0 libcublas.so.11 libcublasLt.so.11 libcufft.so.10 libcurand.so.10 libcusolver.so.10 libcusparse.so.11 libcudnn.so.8 libcupti.so.11.0)
# Compatibility links in the venv: "link:target" (a soname TF asks for -> the one that is installed).
readonly LINKS=()
readonly APT_PACKAGES=(cuda-cudart-11-0=11.0.221-1 libcublas-11-0=11.2.0.252-1 libcufft-11-0=10.2.1.245-1 libcurand-11-0=10.2.1.245-1 libcusolver-11-0=10.6.0.245-1 libcusparse-11-0=11.1.1.245-1 cuda-cupti-11-0=11.0.221-1 libcudnn8=8.0.5.39-1+cuda11.0)

MODE=install
REQUIRE_GPU=0
DISTRO=""
VENV="${TFENV_VENV:-${HOME:-/root}/.venvs/tfenv-$TFENV_ENV}"
PY=""
NVIDIA_REPO=""
NEED_PYTHON=0
PROBLEMS=0
CHANGES=0
TMP_FILES=()
VENV_CREATED=0   # this run made the venv: a failure before it is complete removes it, so a rerun starts clean
VENV_DONE=0

say() { printf 'tfenv-wsl: %s\n' "$*"; }
warn() { printf 'tfenv-wsl: warning: %s\n' "$*" >&2; }
die() { printf 'tfenv-wsl: error: %s\n' "$1" >&2; exit "${2:-2}"; }
problem() { printf 'tfenv-wsl: problem: %s\n' "$1" >&2; PROBLEMS=$((PROBLEMS + 1)); }
changed() { say "$*"; CHANGES=$((CHANGES + 1)); }
cleanup() {
  if [ -n "${TMP_FILES[*]-}" ]; then rm -f "${TMP_FILES[@]}"; fi
  if [ "$VENV_CREATED" = 1 ] && [ "$VENV_DONE" = 0 ]; then
    VENV_CREATED=0
    printf 'tfenv-wsl: removing the unfinished venv %s\n' "$VENV" >&2
    rm -rf -- "$VENV"
  fi
}
trap cleanup EXIT
trap 'cleanup; die "interrupted; nothing half-done is kept as done: run the script again" 130' INT TERM

usage() {
  cat <<EOF
usage: bash $0 [--check | --dry-run] [--venv DIR] [--distro NAME] [--require-gpu]

Installs TensorFlow $TF_VERSION (CUDA $CUDA_VERSION runtime from $CUDA_SOURCE) into a venv inside WSL2.
  --check        preflight only: WSL2, the Windows driver, no Linux driver, distribution, Python
  --dry-run      print every step it would take; changes nothing and checks nothing
  --venv DIR     where the venv goes (default: \$TFENV_VENV or ~/.venvs/tfenv-$TFENV_ENV)
  --distro NAME  the distribution to expect (or, with --dry-run, to plan for):
                 Ubuntu-20.04, Ubuntu-18.04
  --require-gpu  fail when TensorFlow lists no GPU at the end (default: a warning)
EOF
}

parse_args() {
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --check) MODE=check ;;
      --dry-run) MODE=dry-run ;;
      --require-gpu) REQUIRE_GPU=1 ;;
      --venv) [ "$#" -ge 2 ] || die "--venv needs a folder: --venv ~/venvs/$TFENV_ENV"; VENV=$2; shift ;;
      --venv=*) VENV=${1#--venv=} ;;
      --distro) [ "$#" -ge 2 ] || die "--distro needs a name: Ubuntu-20.04, Ubuntu-18.04"; DISTRO=$2; shift ;;
      --distro=*) DISTRO=${1#--distro=} ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown option '$1': see 'bash $0 --help'" ;;
    esac
    shift
  done
}

# --- the distributions this environment was tested on (matrix.yaml: wsl.distros) -----------------

distro_of_os_release() {
  case "$1" in
    ubuntu:20.04) echo "Ubuntu-20.04" ;;
    ubuntu:18.04) echo "Ubuntu-18.04" ;;
    *) return 1 ;;
  esac
}

use_distro() {
  case "$1" in
    Ubuntu-20.04) PY=3.8; NVIDIA_REPO=ubuntu2004 ;;
    Ubuntu-18.04) PY=3.8; NVIDIA_REPO=ubuntu1804 ;;
    *) die "unknown distribution '$1': $TFENV_ENV was tested on Ubuntu-20.04, Ubuntu-18.04" ;;
  esac
}

os_release() {
  # shellcheck source=/dev/null
  (. /etc/os-release 2>/dev/null && printf '%s:%s' "${ID:-?}" "${VERSION_ID:-?}") || printf '?:?'
}

# --- the full pin set per Python (locks/tf24-pyX.Y.txt), each pin with the
# sha256 of every file it may be: pip installs them with --require-hashes, so a mirror cannot change them --

requirements() {
  case "$PY" in
    3.8)
      cat <<'EOF'
pip==23.0.1 --hash=sha256:236bcb61156d76c4b8a05821b988c7b8c35bf0da28a4b614e8d6ab5212c25c6f
absl-py==0.15.0 --hash=sha256:ea907384af023a7e681368bedb896159ab100c7db593efbbd5cde22af11270cd
astunparse==1.6.3 --hash=sha256:c2652417f2c8b5bb325c885ae329bdf3f86424075c4fd1a128674bc6fba4b8e8
cachetools==5.0.0 --hash=sha256:8fecd4203a38af17928be7b90689d8083603073622229ca7077b72d8e5a976e4
certifi==2021.10.8 --hash=sha256:d62a0163eb4c2344ac042ab2bdf75399a71a2d8c7d47eac2e2ee91b9d6339569
charset-normalizer==2.0.11 --hash=sha256:2842d8f5e82a1f6aa437380934d5e1cd4fcf2003b06fed6940769c164a480a45
flatbuffers==1.12 --hash=sha256:9e9ef47fa92625c4721036e7c4124182668dc6021d9e7c73704edd395648deb9
gast==0.3.3 --hash=sha256:8f46f5be57ae6889a4e16e2ca113b1703ef17f2b0abceb83793eaba9e1351a45
google-auth==2.6.0 --hash=sha256:218ca03d7744ca0c8b6697b6083334be7df49b7bf76a69d555962fd1a7657b5f
google-auth-oauthlib==0.4.6 --hash=sha256:3f2a6e802eebbb6fb736a370fbf3b055edcb6b52878bf2f26330b5e041316c73
google-pasta==0.2.0 --hash=sha256:b32482794a366b5366a32c92a9a9201b107821889935a02b3e51f6b432ea84ed
grpcio==1.32.0 --hash=sha256:1ce6f5ff4f4a548c502d5237a071fa617115df58ea4b7bd41dac77c1ab126e9c --hash=sha256:f53f2dfc8ff9a58a993e414a016c8b21af333955ae83960454ad91798d467c7b
h5py==2.10.0 --hash=sha256:d35f7a3a6cefec82bfdad2785e78359a0e6a5fbb3f605dd5623ce88082ccd681
idna==3.3 --hash=sha256:84d9dd047ffa80596e0f246e2eab0b391788b0503584e8945f2368256d2735ff
importlib-metadata==4.10.1 --hash=sha256:899e2a40a8c4a1aec681feef45733de8a6c58f3f6a0dbed2eb6574b4387a77b6
keras-preprocessing==1.1.2 --hash=sha256:7b82029b130ff61cc99b55f3bd27427df4838576838c5b2f65940e4fcec99a7b
markdown==3.3.6 --hash=sha256:9923332318f843411e9932237530df53162e29dc7a4e2b91e35764583c46c9a3
numpy==1.19.5 --hash=sha256:012426a41bc9ab63bb158635aecccc7610e3eff5d31d1eb43bc099debc979d94 --hash=sha256:a9d17f2be3b427fbb2bce61e596cf555d6f8a56c222bd2ca148baeeb5e5c783c
oauthlib==3.2.0 --hash=sha256:6db33440354787f9b7f3a6dbd4febf5d0f93758354060e802f6c06cb493022fe
opt-einsum==3.3.0 --hash=sha256:2455e59e3947d3c275477df7f5205b30635e266fe6dc300e3d9f9646bfcea147
protobuf==3.19.4 --hash=sha256:8961c3a78ebfcd000920c9060a262f082f29838682b1f7201889300c1fbe0616 --hash=sha256:bd95d1dfb9c4f4563e6093a9aa19d9c186bf98fa54da5252531cc0d3a07977e7
pyasn1==0.4.8 --hash=sha256:39c7e2ec30515947ff4e87fb6f456dfc6e84857d34be479c9d4a4ba4bf46aa5d
pyasn1-modules==0.2.8 --hash=sha256:a50b808ffeb97cb3601dd25981f6b016cbb3d31fbf57a8b8a87428e6158d0c74
requests==2.27.1 --hash=sha256:f22fa1e554c9ddfd16e6e41ac79759e17be9e492b3587efa038054674760e72d
requests-oauthlib==1.3.1 --hash=sha256:2577c501a2fb8d05a304c09d090d6e47c306fef15809d102b327cf8364bddab5
rsa==4.8 --hash=sha256:95c5d300c4e879ee69708c428ba566c59478fd653cc3a22243eeb8ed846950bb
setuptools==60.6.0 --hash=sha256:c99207037c38984eae838c2fd986f39a9ddf4fabfe0fddd957e622d1d1dcdd05
six==1.15.0 --hash=sha256:8b74bedcbbbaca38ff6d7491d76f2b06b3592611af620f8426e82dddb04a5ced
tensorboard==2.8.0 --hash=sha256:65a338e4424e9079f2604923bdbe301792adce2ace1be68da6b3ddf005170def
tensorboard-data-server==0.6.1 --hash=sha256:809fe9887682d35c1f7d1f54f0f40f98bb1f771b14265b453ca051e2ce58fca7 --hash=sha256:d8237580755e58eff68d1f3abefb5b1e39ae5c8b127cc40920f9c4fb33f4b98a
tensorboard-plugin-wit==1.8.1 --hash=sha256:ff26bdd583d155aa951ee3b152b3d0cffae8005dc697f72b44a8e8c2a77a8cbe
tensorflow==2.4.4 --hash=sha256:d130f829e6245fd825262d191d222e31f29d19cf9f7824401bee5e40350bef86
tensorflow-estimator==2.4.0 --hash=sha256:5b7b7bf2debe19a8794adacc43e8ba6459daa4efaf54d3302623994a359b17f0
termcolor==1.1.0 --hash=sha256:1d6d69ce66211143803fbc56652b41d73b4a400a2891d7bf7a1cdf4c02de613b
typing-extensions==3.7.4.3 --hash=sha256:7cb407020f00f7bfc3cb3e7881628838e69d8f3fcab2f64742a5e76b2f841918
urllib3==1.26.8 --hash=sha256:000ca7f471a233c2251c6c7023ee85305721bfdf18621ebff4fd17a8653427ed
werkzeug==2.0.2 --hash=sha256:63d3dc1cf60e7b7e35e97fa9861f7397283b75d765afcaefd993d6046899de8f
wheel==0.37.1 --hash=sha256:4bdcd7d840138086126cd09254dc6195fb4fc6f01c050a1d7236f2630db1d22a
wrapt==1.12.1 --hash=sha256:b62ffa81fb85f4332a4f609cab4ac40709470da05643a082ec1eb88e6d9b97d7
zipp==3.7.0 --hash=sha256:b47250dd24f92b7dd6a0a8fc5244da14608f3ca90a5efcd37a3b1642fac9a375
EOF
      ;;
    *) die "no pin set for Python $PY: $TFENV_ENV was tested with Python 3.8" ;;
  esac
}

# --- helpers --------------------------------------------------------------------------------------

proxy_env() {  # the proxy settings as NAME=VALUE words, for sudo (which drops them) and apt (which reads lower case)
  local name value
  for name in http_proxy https_proxy no_proxy; do
    value=$(printenv "$name" || printenv "${name^^}" || true)
    if [ -n "$value" ]; then printf '%s=%s\n' "$name" "$value"; fi
  done
}

as_root() {
  local -a proxies=()
  mapfile -t proxies < <(proxy_env)
  if [ "$(id -u)" = 0 ]; then
    env ${proxies[@]+"${proxies[@]}"} "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo env ${proxies[@]+"${proxies[@]}"} "$@"
  else
    die "this step needs root and there is no sudo: run the script as root (wsl -u root) or install sudo"
  fi
}

version_ge() {  # version_ge A B: A >= B
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

site_packages() { printf '%s/lib/python%s/site-packages' "$VENV" "$PY"; }

lib_dirs() {
  # The Windows driver first (docs/sources.md section 5: without it, cuInit fails with error 303), then the venv's links.
  printf '%s\n' "$WSL_LIB" "$VENV/lib/tfenv"
  printf '%s\n' "/usr/local/cuda-11.0/targets/x86_64-linux/lib"
  printf '%s\n' "/usr/local/cuda-11.0/extras/CUPTI/lib64"
}

lib_path() { lib_dirs | paste -sd: -; }

activation_block() {
  # shellcheck disable=SC2016  # the single-quoted lines are expanded by activate, not here
  printf '%s\n' "$MARK_BEGIN" \
    "# Added by tfenv's $TFENV_ENV install.sh: the Windows driver and the CUDA libraries for TensorFlow." \
    'if [ -z "${_TFENV_SAVED_LD_LIBRARY_PATH+x}" ]; then _TFENV_SAVED_LD_LIBRARY_PATH="${LD_LIBRARY_PATH-}"; fi' \
    "LD_LIBRARY_PATH=\"$(lib_path)\${_TFENV_SAVED_LD_LIBRARY_PATH:+:\$_TFENV_SAVED_LD_LIBRARY_PATH}\"" \
    'export LD_LIBRARY_PATH' \
    "$MARK_END"
}

normalize_pins() {  # name==version with pip's name normalization, sorted (a pin's --hash options dropped)
  awk '{ split($1, p, "=="); if (p[2] == "") next; n = tolower(p[1]); gsub(/[-_.]+/, "-", n); print n "==" p[2] }' \
    | LC_ALL=C sort -u
}

hash_mismatch() {  # hash_mismatch LOG: one line for pip's refusal of a file that is not the locked one
  awk '/DO NOT MATCH THE HASHES/ { found = 1; next }
    found && $1 ~ /==/ {
      split($1, p, "=="); url = ($2 == "from") ? $3 : ""; sub(/#.*/, "", url)
      host = url; sub(/^[a-z+]+:\/\//, "", host); sub(/\/.*/, "", host); sub(/^.*@/, "", host)
      printf "%s %s from %s is not the file the lock names (its sha256 differs): a mirror or proxy changed it, and nothing was installed. Use another index (PIP_INDEX_URL) and tell whoever runs this one\n", p[1], p[2], (host != "" ? host : "the index")
      exit
    }' "$1"
}

pip_install() {  # pip_install REQUIREMENTS: the hashed pins, or die with one line (cleanup removes a venv this run made)
  local log mismatch
  log=$(mktemp); TMP_FILES+=("$log")
  if "$VENV/bin/python" -m pip install --disable-pip-version-check --no-deps --require-hashes -r "$1" 2>&1 | tee "$log"; then
    return 0
  fi
  mismatch=$(hash_mismatch "$log")
  [ -z "$mismatch" ] || die "$mismatch"
  die "pip could not install the pinned packages: check the network (PIP_INDEX_URL, PIP_CERT for a TLS proxy), then run again"
}

missing_pins() {
  local want have
  want=$(requirements | normalize_pins)
  have=$("$VENV/bin/python" -m pip freeze --all 2>/dev/null | normalize_pins || true)
  LC_ALL=C comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$have")
}

# --- preflight ------------------------------------------------------------------------------------

check_wsl2() {
  local version
  version=$(cat "$WSL_ROOT/proc/version" 2>/dev/null || true)
  case "$version" in
    *[Mm]icrosoft*WSL2* | *microsoft-standard*) say "ok: running in WSL2" ;;
    *[Mm]icrosoft*) problem "this is WSL 1, which has no GPU: in PowerShell run 'wsl --set-version ${WSL_DISTRO_NAME:-DISTRIBUTION} 2', then run this script again" ;;
    *) problem "not running inside WSL2 (/proc/version names no Microsoft kernel): run this script inside the WSL2 distribution (from PowerShell: wsl -d Ubuntu-20.04 -- bash install.sh); on plain Linux use tfenv's Docker image instead" ;;
  esac
}

check_windows_driver() {
  local found="" version
  for f in "$WSL_LIB/libcuda.so.1" "$WSL_LIB/libcuda.so"; do
    if [ -e "$f" ]; then found=$f; break; fi
  done
  if [ -n "$found" ]; then
    say "ok: the Windows driver's libcuda.so is in /usr/lib/wsl/lib"
  else
    problem "no libcuda.so in /usr/lib/wsl/lib, so the Windows NVIDIA driver does not reach WSL: install the NVIDIA driver on Windows (at least $DRIVER_MIN), run 'wsl --update' and 'wsl --shutdown' in PowerShell, then run this script again"
  fi
  if [ ! -e "$WSL_ROOT/dev/dxg" ]; then
    warn "no /dev/dxg (the GPU device of WSL2): update WSL ('wsl --update' in PowerShell) and restart it ('wsl --shutdown')"
  fi
  if [ -x "$WSL_LIB/nvidia-smi" ]; then
    version=$("$WSL_LIB/nvidia-smi" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
    if [ -n "$version" ] && ! version_ge "$version" "$DRIVER_MIN"; then
      problem "the Windows NVIDIA driver is $version; $TFENV_ENV needs at least $DRIVER_MIN: update it on Windows, then 'wsl --shutdown'"
    elif [ -n "$version" ]; then
      say "ok: Windows NVIDIA driver $version (at least $DRIVER_MIN)"
    fi
  fi
}

check_no_linux_driver() {
  local packages="" files="" dir f
  if command -v dpkg-query >/dev/null 2>&1; then
    # shellcheck disable=SC2016  # dpkg-query's own ${...} format, not the shell's
    packages=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null \
      | awk '$1 ~ /^.i/ && $2 ~ /^(nvidia-driver|libnvidia-compute|nvidia-kernel|nvidia-dkms|cuda-drivers|libcuda1$|nvidia-utils)/ { print $2 }' \
      | paste -sd' ' - || true)
  fi
  for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    for f in "$dir"/libcuda.so* "$dir"/libnvidia-ml.so*; do
      if [ -e "$f" ]; then files="${files:+$files }$f"; fi
    done
  done
  if [ -n "$packages" ]; then
    problem "a Linux NVIDIA driver is installed inside WSL ($packages); it hides the Windows driver: remove it (sudo apt-get purge $packages), then 'wsl --shutdown' in PowerShell. In WSL2 the Windows driver is the only driver"
  elif [ -n "$files" ]; then
    problem "Linux NVIDIA driver libraries are installed inside WSL ($files); they hide the Windows driver's /usr/lib/wsl/lib/libcuda.so.1: remove them (or the package that owns them: dpkg -S FILE), then 'wsl --shutdown' in PowerShell"
  else
    say "ok: no Linux NVIDIA driver inside WSL"
  fi
}

check_distro() {
  local release found
  release=$(os_release)
  if ! found=$(distro_of_os_release "$release"); then
    problem "this distribution (${release/:/ }) is not one $TFENV_ENV was tested on: in PowerShell run 'wsl --install -d Ubuntu-20.04' and run this script there (tested: Ubuntu-20.04, Ubuntu-18.04)"
    return 1
  fi
  if [ -n "$DISTRO" ] && [ "$DISTRO" != "$found" ]; then
    problem "this is $found, not $DISTRO as --distro says: run the script in $DISTRO (wsl -d $DISTRO) or drop --distro"
    return 1
  fi
  use_distro "$found"
  say "ok: distribution $found (Python $PY)"
}

check_python() {
  local got
  if ! command -v "python$PY" >/dev/null 2>&1; then
    NEED_PYTHON=1
  else
    got=$("python$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
    if [ "$got" != "$PY" ]; then
      problem "python$PY reports Python '${got:-nothing}': reinstall it (sudo apt-get install --reinstall python$PY)"
      return 0
    fi
    "python$PY" -c 'import ensurepip, venv' >/dev/null 2>&1 || NEED_PYTHON=1
  fi
  if [ "$NEED_PYTHON" = 1 ]; then
    say "to do: python$PY or its venv module is missing; the install step runs: apt-get install python$PY python$PY-venv"
    if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
      problem "installing python$PY needs root and there is no sudo: run the script as root (wsl -u root)"
    fi
  else
    say "ok: python$PY with venv"
  fi
  if [ -x "$VENV/bin/python" ]; then
    got=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
    if [ "$got" != "$PY" ]; then
      problem "$VENV holds a Python ${got:-that does not start}, not $PY: remove it (rm -rf $VENV) or pass --venv DIR"
    elif ! PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
      problem "$VENV is unfinished or broken (its pip does not run): remove it (rm -rf $VENV) or pass --venv DIR, then run this script again"
    fi
  fi
}

check_pip_settings() {
  # setup.ps1 hands Windows' PIP_INDEX_URL, PIP_CERT (its path translated) and proxy through WSLENV; say what arrived.
  if [ -n "${PIP_CERT:-}" ] && [ ! -f "$PIP_CERT" ]; then
    problem "PIP_CERT=$PIP_CERT is not a file inside WSL: put the CA bundle where WSL sees it (a Windows path is translated by setup.ps1, e.g. /mnt/c/...), then run this script again"
  fi
  say "pip: index ${PIP_INDEX_URL:-the one pip.conf or pip names}${PIP_EXTRA_INDEX_URL:+, extra index $PIP_EXTRA_INDEX_URL}${PIP_CERT:+, CA bundle $PIP_CERT}$(proxy_env | sed -n 's/^https_proxy=/, proxy /p')"
}

preflight() {
  check_pip_settings
  check_wsl2
  check_windows_driver
  check_no_linux_driver
  if check_distro; then check_python; fi
  if [ "$PROBLEMS" -gt 0 ]; then
    die "preflight found $PROBLEMS problem(s), each with its fix above; nothing was changed"
  fi
  say "preflight passed"
}

# --- install (each step does nothing when its result is already there) ----------------------------

install_python() {
  [ "$NEED_PYTHON" = 1 ] || return 0
  as_root apt-get update || die "apt-get update failed: check the network and /etc/apt/sources.list, then run again"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "python$PY" "python$PY-venv" \
    || die "apt-get could not install python$PY python$PY-venv: fix what apt says above (sudo dpkg --configure -a may help), then run again"
  changed "installed python$PY and python$PY-venv from the distribution"
}

apt_missing() {
  local spec have
  for spec in "${APT_PACKAGES[@]}"; do
    have=$(dpkg-query -W -f='${Version}' "${spec%%=*}" 2>/dev/null || true)
    [ "$have" = "${spec#*=}" ] || printf '%s\n' "$spec"
  done
}

install_cuda_apt() {
  local base="https://developer.download.nvidia.com/compute/cuda/repos/$NVIDIA_REPO/x86_64" deb
  if [ -z "$(apt_missing)" ]; then
    say "ok: the CUDA $CUDA_VERSION runtime packages are installed at their pinned versions"
    return 0
  fi
  if [ ! -f /usr/share/keyrings/cuda-archive-keyring.gpg ]; then
    command -v curl >/dev/null 2>&1 || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl ca-certificates
    deb=$(mktemp --suffix=.deb); TMP_FILES+=("$deb")
    curl -fsSL -o "$deb" "$base/cuda-keyring_1.1-1_all.deb" \
      || die "cannot download NVIDIA's repository key from $base: check the network (or a proxy: export https_proxy=...), then run again"
    as_root dpkg -i "$deb"
  fi
  as_root apt-get update || die "apt-get update failed: check the network and /etc/apt/sources.list.d/cuda*.list, then run again"
  # Runtime libraries only: never the cuda, cuda-1X-Y or cuda-drivers meta packages (they pull a Linux driver).
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}" \
    || die "apt-get could not install the CUDA $CUDA_VERSION runtime packages: fix what apt says above, then run again"
  as_root apt-mark hold "${APT_PACKAGES[@]%%=*}" >/dev/null
  changed "installed the CUDA $CUDA_VERSION runtime packages from NVIDIA's $NVIDIA_REPO repository"
}

make_venv() {
  if [ -x "$VENV/bin/python" ]; then
    say "ok: venv $VENV exists"
    return 0
  fi
  mkdir -p "$(dirname "$VENV")"
  [ -e "$VENV" ] || VENV_CREATED=1
  "python$PY" -m venv "$VENV" || die "python$PY -m venv $VENV failed: install python$PY-venv (sudo apt-get install python$PY-venv), remove $VENV, run again"
  changed "created the venv $VENV"
}

install_packages() {
  local missing reqs
  missing=$(missing_pins)
  if [ -z "$missing" ]; then
    say "ok: every pinned package is installed ($(requirements | wc -l) pins)"
    return 0
  fi
  say "installing $(printf '%s\n' "$missing" | wc -l) pinned package(s) into $VENV"
  reqs=$(mktemp); TMP_FILES+=("$reqs")
  if printf '%s\n' "$missing" | grep -q '^pip=='; then
    requirements | grep '^pip==' > "$reqs"
    pip_install "$reqs"  # pip $PIP_VERSION first: the venv's own pip may be too old for the wheels
  fi
  requirements > "$reqs"
  # --no-deps: the pin set is complete (it was resolved and tested as a whole); pip must not pick today's numpy.
  pip_install "$reqs"
  "$VENV/bin/python" -m pip check >/dev/null \
    || warn "pip check reports inconsistencies ('$VENV/bin/python -m pip check' shows them)"
  changed "installed the pinned packages"
}

find_lib() {  # find_lib NAME: the first library folder that has NAME
  local dir
  while IFS= read -r dir; do
    if [ -e "$dir/$1" ]; then printf '%s/%s\n' "$dir" "$1"; return 0; fi
  done < <(lib_dirs | tail -n +3)
  return 1
}

make_links() {
  local spec link target dir="$VENV/lib/tfenv"
  mkdir -p "$dir"
  for spec in ${LINKS[@]+"${LINKS[@]}"}; do
    link=${spec%%:*}
    target=$(find_lib "${spec#*:}") || die "${spec#*:} is in none of the CUDA library folders, so $link cannot point to it: run the script again to reinstall"
    if [ "$(readlink "$dir/$link" 2>/dev/null || true)" = "$target" ]; then
      continue
    fi
    ln -sfn "$target" "$dir/$link"
    changed "linked $link -> $target"
  done
}

write_activation() {
  local act="$VENV/bin/activate" block current tmp dir
  while IFS= read -r dir; do
    [ "$dir" = "$WSL_LIB" ] || [ -d "$dir" ] || die "$dir is missing: run the script again to reinstall its package"
  done < <(lib_dirs)
  block=$(activation_block)
  current=$(sed -n "/^$MARK_BEGIN\$/,/^$MARK_END\$/p" "$act")
  if [ "$current" = "$block" ]; then
    say "ok: $act sets LD_LIBRARY_PATH"
    return 0
  fi
  tmp=$(mktemp); TMP_FILES+=("$tmp")
  sed "/^$MARK_BEGIN\$/,/^$MARK_END\$/d" "$act" > "$tmp"
  printf '%s\n' "$block" >> "$tmp"
  cat "$tmp" > "$act"
  changed "wrote LD_LIBRARY_PATH into $act"
}

# --- the checks of tfenv's image suite, in the venv as a user activates it -----------------------

final_checks() {
  local rc=0
  (
    set +u
    # shellcheck source=/dev/null
    . "$VENV/bin/activate"
    PYTHONDONTWRITEBYTECODE=1 python - "$TF_VERSION" "${SONAMES[@]}"
  ) <<'PY' || rc=$?
import ctypes, os, re, subprocess, sys

for stream in (sys.stdout, sys.stderr):
    if hasattr(stream, "reconfigure"):  # a path the locale cannot spell is escaped, never a crash
        stream.reconfigure(errors="backslashreplace")
want_tf, sonames = sys.argv[1], sys.argv[2:]


def mapped():
    with open("/proc/self/maps") as maps:
        return {line.split(None, 5)[5].strip() for line in maps if "/" in line}


failed = 0
for name in sonames:
    before = mapped()
    try:
        ctypes.CDLL(name)
    except OSError as exc:
        print("FAIL %s does not load: %s" % (name, exc))
        failed += 1
        continue
    # The file it maps, new ones first (a library may already be loaded as another one's dependency).
    stem = name.split(".so")[0] + ".so"
    now = mapped()
    hits = [p for p in sorted(now - before) + sorted(now & before) if os.path.basename(p).startswith(stem)]
    print("ok   %s loads from %s" % (name, hits[0] if hits else "(not found in /proc/self/maps)"))

code = "import tensorflow as tf; print(tf.__version__); print(len(tf.config.list_physical_devices('GPU')))"
child = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       encoding="utf-8", errors="replace")
if child.returncode != 0:
    print("FAIL import tensorflow: " + (child.stderr.strip().splitlines() or ["exit %d" % child.returncode])[-1])
    sys.exit(1)
version, gpus = child.stdout.split()[-2:]
missing = sorted(set(re.findall(r"Could not load dynamic library '([^']+)'", child.stderr)) - {"libcuda.so.1"})
for name in missing:
    print("FAIL TensorFlow could not load %s" % name)
failed += len(missing)
if version != want_tf:
    print("FAIL TensorFlow is %s, not %s" % (version, want_tf))
    failed += 1
else:
    print("ok   TensorFlow %s" % version)
if failed:
    sys.exit(1)
print("ok   TensorFlow lists %s GPU(s)" % gpus if gpus != "0" else "none TensorFlow lists no GPU")
sys.exit(0 if gpus != "0" else 4)
PY
  case "$rc" in
    0) say "all checks passed: source $VENV/bin/activate" ;;
    4)
      if [ "$REQUIRE_GPU" = 1 ]; then
        die "TensorFlow lists no GPU: check 'nvidia-smi' in PowerShell shows the GPU with driver $DRIVER_MIN or newer, then 'wsl --shutdown' and try again" 1
      fi
      warn "TensorFlow lists no GPU; the libraries are in place. Check 'nvidia-smi' in PowerShell shows the GPU with driver $DRIVER_MIN or newer, then 'wsl --shutdown' and try again (--require-gpu makes this an error)"
      say "checks passed without a GPU: source $VENV/bin/activate"
      ;;
    *) die "the checks above failed: run the script again (it reinstalls what is missing); if they still fail, report the output" 1 ;;
  esac
}

# --- dry run: the plan, from the same values the steps use ----------------------------------------

dry_run() {
  local release found
  if [ -z "$DISTRO" ]; then
    release=$(os_release)
    found=$(distro_of_os_release "$release") \
      || die "this distribution (${release/:/ }) is not one $TFENV_ENV was tested on: pass --distro NAME to plan for one (Ubuntu-20.04, Ubuntu-18.04)"
    DISTRO=$found
  fi
  use_distro "$DISTRO"
  say "dry run for $TFENV_ENV on $DISTRO (Python $PY), venv $VENV: nothing is changed or checked"
  echo "would check: /proc/version names Microsoft's WSL2 kernel"
  echo "would check: the Windows driver's libcuda.so is in /usr/lib/wsl/lib (driver $DRIVER_MIN or newer)"
  echo "would check: no Linux NVIDIA driver inside WSL (packages nvidia-driver-*, libnvidia-compute-*, cuda-drivers; libcuda.so*, libnvidia-ml.so* outside /usr/lib/wsl)"
  echo "would check: /etc/os-release is $DISTRO, python$PY has the venv module"
  echo "would run, if python$PY or its venv module is missing: as root: apt-get install -y --no-install-recommends python$PY python$PY-venv"
  echo "would run, if a package is missing: as root: install NVIDIA's cuda-keyring for https://developer.download.nvidia.com/compute/cuda/repos/$NVIDIA_REPO/x86_64"
  echo "would run, if a package is missing: as root: apt-get install -y --no-install-recommends ${APT_PACKAGES[*]}"
  echo "would run, if a package is missing: as root: apt-mark hold ${APT_PACKAGES[*]%%=*}"
  echo "would run, if $VENV is missing: python$PY -m venv $VENV"
  echo "would run, if a pin is missing: $VENV/bin/python -m pip install --no-deps --require-hashes pip==$PIP_VERSION (with its hash)"
  echo "would run, if a pin is missing: $VENV/bin/python -m pip install --no-deps --require-hashes -r REQUIREMENTS, where REQUIREMENTS is:"
  requirements | sed 's/^/    /'
  for spec in ${LINKS[@]+"${LINKS[@]}"}; do
    echo "would link: $VENV/lib/tfenv/${spec%%:*} -> ${spec#*:} (from the CUDA library folders)"
  done
  echo "would write into $VENV/bin/activate:"
  activation_block | sed 's/^/    /'
  echo "would check: ${SONAMES[*]} load; TensorFlow is $TF_VERSION; TensorFlow lists a GPU ($([ "$REQUIRE_GPU" = 1 ] && echo error || echo warning) if not)"
}

main() {
  parse_args "$@"
  case "$MODE" in
    dry-run) dry_run; return 0 ;;
    check) preflight; return 0 ;;
  esac
  preflight
  install_python
  install_cuda_apt
  make_venv
  install_packages
  make_links
  write_activation
  VENV_DONE=1  # complete: a failing final check keeps it (the next run checks again)
  if [ "$CHANGES" = 0 ]; then say "already installed: nothing changed"; else say "$CHANGES change(s) made"; fi
  final_checks
}

main "$@"
