#!/usr/bin/env bash
# tfenv tf29: TensorFlow 2.9.3 with the GPU inside WSL2, without Docker.
# Rendered from matrix.yaml by `tfenv wsl tf29`: edit wsl/templates/, not this file.
#
# Run it inside the WSL2 distribution (Ubuntu-20.04, Ubuntu-18.04, Debian), or let setup.ps1 start it from Windows:
#   bash install.sh              preflight, install into a venv, then check it (run it again: it changes nothing)
#   bash install.sh --check      preflight only
#   bash install.sh --dry-run    print what it would do, change nothing
# Behind a TLS proxy or with a package mirror, pip reads PIP_CERT=/path/to/ca-bundle.crt and
# PIP_INDEX_URL=https://mirror.example.org/simple from the environment.
set -euo pipefail

readonly TFENV_ENV="tf29"
readonly TF_VERSION="2.9.3"
readonly CUDA_VERSION="11.2"
readonly CUDA_SOURCE="pip"   # pip: NVIDIA's wheels in the venv; apt: NVIDIA's repository, runtime libraries only
readonly PIP_VERSION="23.0.1"
readonly DRIVER_MIN="495.0"
# Simulation only: tfenv's own tests point TFENV_WSL_ROOT at a fake WSL tree (proc/version, dev/dxg,
# usr/lib/wsl/lib). On a real WSL2 system it is unset.
readonly WSL_ROOT="${TFENV_WSL_ROOT:-}"
readonly WSL_LIB="$WSL_ROOT/usr/lib/wsl/lib"
readonly MARK_BEGIN="# >>> tfenv $TFENV_ENV >>>"
readonly MARK_END="# <<< tfenv $TFENV_ENV <<<"
readonly SONAMES=(libcudart.so.11.0 libcublas.so.11 libcublasLt.so.11 libcufft.so.10 libcurand.so.10 libcusolver.so.11 libcusparse.so.11 libcudnn.so.8 libcupti.so.11.2)
# Compatibility links in the venv: "link:target" (a soname TF asks for -> the one that is installed).
readonly LINKS=("libcupti.so.11.2:libcupti.so.11.8")

MODE=install
REQUIRE_GPU=0
DISTRO=""
VENV="${TFENV_VENV:-${HOME:-/root}/.venvs/tfenv-$TFENV_ENV}"
PY=""
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
                 Ubuntu-20.04, Ubuntu-18.04, Debian
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
      --distro) [ "$#" -ge 2 ] || die "--distro needs a name: Ubuntu-20.04, Ubuntu-18.04, Debian"; DISTRO=$2; shift ;;
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
    debian:11) echo "Debian" ;;
    *) return 1 ;;
  esac
}

use_distro() {
  case "$1" in
    Ubuntu-20.04) PY=3.8 ;;
    Ubuntu-18.04) PY=3.8 ;;
    Debian) PY=3.9 ;;
    *) die "unknown distribution '$1': $TFENV_ENV was tested on Ubuntu-20.04, Ubuntu-18.04, Debian" ;;
  esac
}

os_release() {
  # shellcheck source=/dev/null
  (. /etc/os-release 2>/dev/null && printf '%s:%s' "${ID:-?}" "${VERSION_ID:-?}") || printf '?:?'
}

# --- the full pin set per Python (locks/tf29-pyX.Y.txt, plus the CUDA wheels), each pin with the
# sha256 of every file it may be: pip installs them with --require-hashes, so a mirror cannot change them --

requirements() {
  case "$PY" in
    3.8)
      cat <<'EOF'
pip==23.0.1 --hash=sha256:236bcb61156d76c4b8a05821b988c7b8c35bf0da28a4b614e8d6ab5212c25c6f
absl-py==1.3.0 --hash=sha256:34995df9bd7a09b3b8749e230408f5a2a2dd7a68a0d33c12a3d0cb15a041a507
astunparse==1.6.3 --hash=sha256:c2652417f2c8b5bb325c885ae329bdf3f86424075c4fd1a128674bc6fba4b8e8
cachetools==5.2.0 --hash=sha256:f9f17d2aec496a9aa6b76f53e3b614c965223c061982d434d160f930c698a9db
certifi==2022.12.7 --hash=sha256:4ad3232f5e926d6718ec31cfc1fcadfde020920e278684144551c91769c7bc18
charset-normalizer==2.1.1 --hash=sha256:83e9a75d1911279afd89352c68b45348559d1fc0506b054b346651b5e7fee29f
flatbuffers==1.12 --hash=sha256:9e9ef47fa92625c4721036e7c4124182668dc6021d9e7c73704edd395648deb9
gast==0.4.0 --hash=sha256:b7adcdd5adbebf1adf17378da5ba3f543684dbec47b1cda1f3997e573cd542c4
google-auth==2.15.0 --hash=sha256:6897b93556d8d807ad70701bb89f000183aea366ca7ed94680828b37437a4994
google-auth-oauthlib==0.4.6 --hash=sha256:3f2a6e802eebbb6fb736a370fbf3b055edcb6b52878bf2f26330b5e041316c73
google-pasta==0.2.0 --hash=sha256:b32482794a366b5366a32c92a9a9201b107821889935a02b3e51f6b432ea84ed
grpcio==1.51.1 --hash=sha256:0fb93051331acbb75b49a2a0fd9239c6ba9528f6bdc1dd400ad1cb66cf864292
h5py==3.7.0 --hash=sha256:0a047fddbe6951bce40e9cde63373c838a978c5e05a011a682db9ba6334b8e85
idna==3.4 --hash=sha256:90b77e79eaa3eba6de819a0c442c0b4ceefc341a7a2ab77d7562bf49f425c5c2
importlib-metadata==6.0.0 --hash=sha256:7efb448ec9a5e313a57655d35aa54cd3e01b7e1fbcf72dce1bf06119420f5bad
keras==2.9.0 --hash=sha256:55911256f89cfc9343c9fbe4b61ec45a2d33d89729cbe1ab9dcacf8b07b8b6ab
keras-preprocessing==1.1.2 --hash=sha256:7b82029b130ff61cc99b55f3bd27427df4838576838c5b2f65940e4fcec99a7b
libclang==14.0.6 --hash=sha256:206d2789e4450a37d054e63b70451a6fc1873466397443fa13de2b3d4adb2796 --hash=sha256:e429853939423f276a25140b0b702442d7da9a09e001c05e48df888336947614
markdown==3.4.1 --hash=sha256:08fb8465cffd03d10b9dd34a5c3fea908e20391a2a90b88d66362cb05beed186
markupsafe==2.1.1 --hash=sha256:4b9fe39a2ccc108a4accc2676e77da025ce383c108593d65cc909add5c3bd601
numpy==1.24.1 --hash=sha256:b0677a52f5d896e84414761531947c7a330d1adc07c3a4372262f25d84af7bf7
oauthlib==3.2.2 --hash=sha256:8139f29aac13e25d502680e9e19963e83f16838d48a0d71c287fe40e7067fbca
opt-einsum==3.3.0 --hash=sha256:2455e59e3947d3c275477df7f5205b30635e266fe6dc300e3d9f9646bfcea147
packaging==22.0 --hash=sha256:957e2148ba0e1a3b282772e791ef1d8083648bc131c8ab0c1feba110ce1146c3
protobuf==3.19.6 --hash=sha256:14082457dc02be946f60b15aad35e9f5c69e738f80ebbc0900a19bc83734a5a4 --hash=sha256:7a552af4dc34793803f4e735aabe97ffc45962dfd3a237bdde242bff5a3de684
pyasn1==0.4.8 --hash=sha256:39c7e2ec30515947ff4e87fb6f456dfc6e84857d34be479c9d4a4ba4bf46aa5d
pyasn1-modules==0.2.8 --hash=sha256:a50b808ffeb97cb3601dd25981f6b016cbb3d31fbf57a8b8a87428e6158d0c74
requests==2.28.1 --hash=sha256:8fefa2a1a1365bf5520aac41836fbee479da67864514bdb821f31ce07ce65349
requests-oauthlib==1.3.1 --hash=sha256:2577c501a2fb8d05a304c09d090d6e47c306fef15809d102b327cf8364bddab5
rsa==4.9 --hash=sha256:90260d9058e514786967344d0ef75fa8727eed8a7d2e43ce9f4bcf1b536174f7
setuptools==65.6.3 --hash=sha256:57f6f22bde4e042978bcd50176fdb381d7c21a9efa4041202288d3737a0c6a54
six==1.16.0 --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254
tensorboard==2.9.1 --hash=sha256:baa727f791776f9e5841d347127720ceed4bbd59c36b40604b95fb2ae6029276
tensorboard-data-server==0.6.1 --hash=sha256:809fe9887682d35c1f7d1f54f0f40f98bb1f771b14265b453ca051e2ce58fca7 --hash=sha256:d8237580755e58eff68d1f3abefb5b1e39ae5c8b127cc40920f9c4fb33f4b98a
tensorboard-plugin-wit==1.8.1 --hash=sha256:ff26bdd583d155aa951ee3b152b3d0cffae8005dc697f72b44a8e8c2a77a8cbe
tensorflow==2.9.3 --hash=sha256:437d0044d6a9537ffd0ded41c9a87a6ee80d4cde9232c616c61727bba28cbe9f
tensorflow-estimator==2.9.0 --hash=sha256:e9762bb302f51bc1eb2f35d19f0190a6a2d809d754d5def788c4328fe3746744
tensorflow-io-gcs-filesystem==0.29.0 --hash=sha256:630372fe2f1c05b57c4ad0c9050b570bc67e474ec513cf046832f8889002fab7
termcolor==2.1.1 --hash=sha256:fa852e957f97252205e105dd55bbc23b419a70fec0085708fc0515e399f304fd
typing-extensions==4.4.0 --hash=sha256:16fa4864408f655d35ec496218b85f79b3437c829e93320c7c9215ccfd92489e
urllib3==1.26.13 --hash=sha256:47cc05d99aaa09c9e72ed5809b60e7ba354e64b59c9c173ac3018642d8bb41fc
werkzeug==2.2.2 --hash=sha256:f979ab81f58d7318e064e99c4506445d60135ac5cd2e177a2de0089bfd4c9bd5
wheel==0.38.4 --hash=sha256:b60533f3f5d530e971d6737ca6d58681ee434818fab630c83a734bb10c083ce8
wrapt==1.14.1 --hash=sha256:ef3f72c9666bba2bab70d2a8b79f2c6d2c1a42a7f7e2b0ec83bb2f9e383950af
zipp==3.11.0 --hash=sha256:83a28fcb75844b5c0cdaf5aa4003c2d728c77e05f5aeabe8e95e56727005fbaa
nvidia-cuda-runtime-cu11==11.8.89 --hash=sha256:92d04069a987e1fbc9213f8376d265df0f7bb42617d44f5eda1f496acea7f2d1 --hash=sha256:f587bd726eb2f7612cf77ce38a2c1e65cf23251ff49437f6161ce0d647f64f7c
nvidia-cublas-cu11==11.11.3.6 --hash=sha256:39fb40e8f486dd8a2ddb8fdeefe1d5b28f5b99df01c87ab3676f057a74a5a6f3 --hash=sha256:60252822adea5d0b10cd990a7dc7bedf7435f30ae40083c7a624a85a43225abc
nvidia-cufft-cu11==10.9.0.58 --hash=sha256:222f9da70c80384632fd6035e4c3f16762d64ea7a843829cb278f98b3cb7dd81 --hash=sha256:e21037259995243cc370dd63c430d77ae9280bedb68d5b5a18226bfc92e5d748
nvidia-curand-cu11==10.3.0.86 --hash=sha256:ac439548c88580269a1eb6aeb602a5aed32f0dbb20809a31d9ed7d01d77f6bf5 --hash=sha256:cd4cffbf78bb06580206b4814d5dc696d1161c902aae37b2bba00056832379e6
nvidia-cusolver-cu11==11.4.1.48 --hash=sha256:ca538f545645b7e6629140786d3127fe067b3d5a085bd794cde5bfe877c8926f --hash=sha256:ea9fb1ad8c644ca9ed55af13cc39af3b7ba4c3eb5aef18471fe1fe77d94383cb
nvidia-cusparse-cu11==11.7.5.86 --hash=sha256:4ae709fe78d3f23f60acaba8c54b8ad556cf16ca486e0cc1aa92dca7555d2d2b --hash=sha256:8d7cf1628fd8d462b5d2ba6678fae34733a48ecb80495b9c68672ec6a6dde5ef
nvidia-cuda-cupti-cu11==11.8.87 --hash=sha256:0e50c707df56c75a2c0703dc6b886f3c97a22f37d6f63839f75b7418ba672a8d --hash=sha256:4191a17913a706b5098681280cd089cd7d8d3df209a6f5cb79384974a96d24f2
nvidia-cudnn-cu11==8.6.0.163 --hash=sha256:add207b5fb149cfa02919b8f413364ff4ed348a202f6ae3d7922ae5303fa38a3
EOF
      ;;
    3.9)
      cat <<'EOF'
pip==23.0.1 --hash=sha256:236bcb61156d76c4b8a05821b988c7b8c35bf0da28a4b614e8d6ab5212c25c6f
absl-py==1.3.0 --hash=sha256:34995df9bd7a09b3b8749e230408f5a2a2dd7a68a0d33c12a3d0cb15a041a507
astunparse==1.6.3 --hash=sha256:c2652417f2c8b5bb325c885ae329bdf3f86424075c4fd1a128674bc6fba4b8e8
cachetools==5.2.0 --hash=sha256:f9f17d2aec496a9aa6b76f53e3b614c965223c061982d434d160f930c698a9db
certifi==2022.12.7 --hash=sha256:4ad3232f5e926d6718ec31cfc1fcadfde020920e278684144551c91769c7bc18
charset-normalizer==2.1.1 --hash=sha256:83e9a75d1911279afd89352c68b45348559d1fc0506b054b346651b5e7fee29f
flatbuffers==1.12 --hash=sha256:9e9ef47fa92625c4721036e7c4124182668dc6021d9e7c73704edd395648deb9
gast==0.4.0 --hash=sha256:b7adcdd5adbebf1adf17378da5ba3f543684dbec47b1cda1f3997e573cd542c4
google-auth==2.15.0 --hash=sha256:6897b93556d8d807ad70701bb89f000183aea366ca7ed94680828b37437a4994
google-auth-oauthlib==0.4.6 --hash=sha256:3f2a6e802eebbb6fb736a370fbf3b055edcb6b52878bf2f26330b5e041316c73
google-pasta==0.2.0 --hash=sha256:b32482794a366b5366a32c92a9a9201b107821889935a02b3e51f6b432ea84ed
grpcio==1.51.1 --hash=sha256:97d67983189e2e45550eac194d6234fc38b8c3b5396c153821f2d906ed46e0ce
h5py==3.7.0 --hash=sha256:ed43e2cc4f511756fd664fb45d6b66c3cbed4e3bd0f70e29c37809b2ae013c44
idna==3.4 --hash=sha256:90b77e79eaa3eba6de819a0c442c0b4ceefc341a7a2ab77d7562bf49f425c5c2
importlib-metadata==6.0.0 --hash=sha256:7efb448ec9a5e313a57655d35aa54cd3e01b7e1fbcf72dce1bf06119420f5bad
keras==2.9.0 --hash=sha256:55911256f89cfc9343c9fbe4b61ec45a2d33d89729cbe1ab9dcacf8b07b8b6ab
keras-preprocessing==1.1.2 --hash=sha256:7b82029b130ff61cc99b55f3bd27427df4838576838c5b2f65940e4fcec99a7b
libclang==14.0.6 --hash=sha256:206d2789e4450a37d054e63b70451a6fc1873466397443fa13de2b3d4adb2796 --hash=sha256:e429853939423f276a25140b0b702442d7da9a09e001c05e48df888336947614
markdown==3.4.1 --hash=sha256:08fb8465cffd03d10b9dd34a5c3fea908e20391a2a90b88d66362cb05beed186
markupsafe==2.1.1 --hash=sha256:56442863ed2b06d19c37f94d999035e15ee982988920e12a5b4ba29b62ad1f77
numpy==1.24.1 --hash=sha256:ef85cf1f693c88c1fd229ccd1055570cb41cdf4875873b7728b6301f12cd05bf
oauthlib==3.2.2 --hash=sha256:8139f29aac13e25d502680e9e19963e83f16838d48a0d71c287fe40e7067fbca
opt-einsum==3.3.0 --hash=sha256:2455e59e3947d3c275477df7f5205b30635e266fe6dc300e3d9f9646bfcea147
packaging==22.0 --hash=sha256:957e2148ba0e1a3b282772e791ef1d8083648bc131c8ab0c1feba110ce1146c3
protobuf==3.19.6 --hash=sha256:14082457dc02be946f60b15aad35e9f5c69e738f80ebbc0900a19bc83734a5a4 --hash=sha256:878b4cd080a21ddda6ac6d1e163403ec6eea2e206cf225982ae04567d39be7b0
pyasn1==0.4.8 --hash=sha256:39c7e2ec30515947ff4e87fb6f456dfc6e84857d34be479c9d4a4ba4bf46aa5d
pyasn1-modules==0.2.8 --hash=sha256:a50b808ffeb97cb3601dd25981f6b016cbb3d31fbf57a8b8a87428e6158d0c74
requests==2.28.1 --hash=sha256:8fefa2a1a1365bf5520aac41836fbee479da67864514bdb821f31ce07ce65349
requests-oauthlib==1.3.1 --hash=sha256:2577c501a2fb8d05a304c09d090d6e47c306fef15809d102b327cf8364bddab5
rsa==4.9 --hash=sha256:90260d9058e514786967344d0ef75fa8727eed8a7d2e43ce9f4bcf1b536174f7
setuptools==65.6.3 --hash=sha256:57f6f22bde4e042978bcd50176fdb381d7c21a9efa4041202288d3737a0c6a54
six==1.16.0 --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254
tensorboard==2.9.1 --hash=sha256:baa727f791776f9e5841d347127720ceed4bbd59c36b40604b95fb2ae6029276
tensorboard-data-server==0.6.1 --hash=sha256:809fe9887682d35c1f7d1f54f0f40f98bb1f771b14265b453ca051e2ce58fca7 --hash=sha256:d8237580755e58eff68d1f3abefb5b1e39ae5c8b127cc40920f9c4fb33f4b98a
tensorboard-plugin-wit==1.8.1 --hash=sha256:ff26bdd583d155aa951ee3b152b3d0cffae8005dc697f72b44a8e8c2a77a8cbe
tensorflow==2.9.3 --hash=sha256:95800a95285c9e522324aa77917584cf95a46b1186894783e126d73bb4e0e057
tensorflow-estimator==2.9.0 --hash=sha256:e9762bb302f51bc1eb2f35d19f0190a6a2d809d754d5def788c4328fe3746744
tensorflow-io-gcs-filesystem==0.29.0 --hash=sha256:8543e14b2f32771e7a7eca7a3d34a8fbdf1f4e9ae7d346bcacff011f43c693cb
termcolor==2.1.1 --hash=sha256:fa852e957f97252205e105dd55bbc23b419a70fec0085708fc0515e399f304fd
typing-extensions==4.4.0 --hash=sha256:16fa4864408f655d35ec496218b85f79b3437c829e93320c7c9215ccfd92489e
urllib3==1.26.13 --hash=sha256:47cc05d99aaa09c9e72ed5809b60e7ba354e64b59c9c173ac3018642d8bb41fc
werkzeug==2.2.2 --hash=sha256:f979ab81f58d7318e064e99c4506445d60135ac5cd2e177a2de0089bfd4c9bd5
wheel==0.38.4 --hash=sha256:b60533f3f5d530e971d6737ca6d58681ee434818fab630c83a734bb10c083ce8
wrapt==1.14.1 --hash=sha256:40e7bc81c9e2b2734ea4bc1aceb8a8f0ceaac7c5299bc5d69e37c44d9081d43b
zipp==3.11.0 --hash=sha256:83a28fcb75844b5c0cdaf5aa4003c2d728c77e05f5aeabe8e95e56727005fbaa
nvidia-cuda-runtime-cu11==11.8.89 --hash=sha256:92d04069a987e1fbc9213f8376d265df0f7bb42617d44f5eda1f496acea7f2d1 --hash=sha256:f587bd726eb2f7612cf77ce38a2c1e65cf23251ff49437f6161ce0d647f64f7c
nvidia-cublas-cu11==11.11.3.6 --hash=sha256:39fb40e8f486dd8a2ddb8fdeefe1d5b28f5b99df01c87ab3676f057a74a5a6f3 --hash=sha256:60252822adea5d0b10cd990a7dc7bedf7435f30ae40083c7a624a85a43225abc
nvidia-cufft-cu11==10.9.0.58 --hash=sha256:222f9da70c80384632fd6035e4c3f16762d64ea7a843829cb278f98b3cb7dd81 --hash=sha256:e21037259995243cc370dd63c430d77ae9280bedb68d5b5a18226bfc92e5d748
nvidia-curand-cu11==10.3.0.86 --hash=sha256:ac439548c88580269a1eb6aeb602a5aed32f0dbb20809a31d9ed7d01d77f6bf5 --hash=sha256:cd4cffbf78bb06580206b4814d5dc696d1161c902aae37b2bba00056832379e6
nvidia-cusolver-cu11==11.4.1.48 --hash=sha256:ca538f545645b7e6629140786d3127fe067b3d5a085bd794cde5bfe877c8926f --hash=sha256:ea9fb1ad8c644ca9ed55af13cc39af3b7ba4c3eb5aef18471fe1fe77d94383cb
nvidia-cusparse-cu11==11.7.5.86 --hash=sha256:4ae709fe78d3f23f60acaba8c54b8ad556cf16ca486e0cc1aa92dca7555d2d2b --hash=sha256:8d7cf1628fd8d462b5d2ba6678fae34733a48ecb80495b9c68672ec6a6dde5ef
nvidia-cuda-cupti-cu11==11.8.87 --hash=sha256:0e50c707df56c75a2c0703dc6b886f3c97a22f37d6f63839f75b7418ba672a8d --hash=sha256:4191a17913a706b5098681280cd089cd7d8d3df209a6f5cb79384974a96d24f2
nvidia-cudnn-cu11==8.6.0.163 --hash=sha256:add207b5fb149cfa02919b8f413364ff4ed348a202f6ae3d7922ae5303fa38a3
EOF
      ;;
    *) die "no pin set for Python $PY: $TFENV_ENV was tested with Python 3.8, 3.9" ;;
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
  printf '%s/nvidia/cuda_runtime/lib\n' "$(site_packages)"
  printf '%s/nvidia/cublas/lib\n' "$(site_packages)"
  printf '%s/nvidia/cufft/lib\n' "$(site_packages)"
  printf '%s/nvidia/curand/lib\n' "$(site_packages)"
  printf '%s/nvidia/cusolver/lib\n' "$(site_packages)"
  printf '%s/nvidia/cusparse/lib\n' "$(site_packages)"
  printf '%s/nvidia/cuda_cupti/lib\n' "$(site_packages)"
  printf '%s/nvidia/cudnn/lib\n' "$(site_packages)"
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
    problem "this distribution (${release/:/ }) is not one $TFENV_ENV was tested on: in PowerShell run 'wsl --install -d Ubuntu-20.04' and run this script there (tested: Ubuntu-20.04, Ubuntu-18.04, Debian)"
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
      || die "this distribution (${release/:/ }) is not one $TFENV_ENV was tested on: pass --distro NAME to plan for one (Ubuntu-20.04, Ubuntu-18.04, Debian)"
    DISTRO=$found
  fi
  use_distro "$DISTRO"
  say "dry run for $TFENV_ENV on $DISTRO (Python $PY), venv $VENV: nothing is changed or checked"
  echo "would check: /proc/version names Microsoft's WSL2 kernel"
  echo "would check: the Windows driver's libcuda.so is in /usr/lib/wsl/lib (driver $DRIVER_MIN or newer)"
  echo "would check: no Linux NVIDIA driver inside WSL (packages nvidia-driver-*, libnvidia-compute-*, cuda-drivers; libcuda.so*, libnvidia-ml.so* outside /usr/lib/wsl)"
  echo "would check: /etc/os-release is $DISTRO, python$PY has the venv module"
  echo "would run, if python$PY or its venv module is missing: as root: apt-get install -y --no-install-recommends python$PY python$PY-venv"
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
  make_venv
  install_packages
  make_links
  write_activation
  VENV_DONE=1  # complete: a failing final check keeps it (the next run checks again)
  if [ "$CHANGES" = 0 ]; then say "already installed: nothing changed"; else say "$CHANGES change(s) made"; fi
  final_checks
}

main "$@"
