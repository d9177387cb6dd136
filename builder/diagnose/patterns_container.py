"""The catalogue of the container runtimes' messages: Docker (moby, the docker CLI), Podman and crun, Compose,
Kubernetes and NVIDIA's device plugin, the NVIDIA container toolkit and libnvidia-container, Jetson's runtime, NVIDIA's
NGC images' start-up checks (see builder.diagnose.patterns for how entries are made; each message's source:
builder/diagnose/rules/SOURCES.md).

Docker and Podman hand back the OCI hook's stderr inside their own error line ("error running hook #0: ... stderr:
nvidia-container-cli: ..."), so these patterns match the inner message wherever it sits on the line."""

from builder.diagnose.needles import pattern as _p

# Docker and the NVIDIA container toolkit: before TF starts (moby daemon/devices.go, daemon/runtime*.go; the docker
# CLI's flag parser; libnvidia-container src/cli/configure.c, src/cli/dsl.c, src/driver.c, src/rpc.h, xfuncs.h).
CONTAINER = [
    # (some pastes lose the empty quotes: "could not select device driver with capabilities: [[gpu]]")
    ("select_device_driver", _p(r'could not select device driver (?:"([^"\n]{0,40})" )?with capabilities: '
                                r'([^\n]{0,80})', "could not select device driver")),
    ("unknown_runtime", _p(r"(?:[Uu]nknown or invalid runtime name|Unknown runtime specified):? ?(\w{1,40})",
                           "nknown or invalid runtime name", "Unknown runtime specified")),
    # containerd's CRI plugin for a RuntimeClass whose handler it has no runtime for (pkg/cri: "no runtime for %q is
    # configured"): the nvidia runtime is not registered in containerd's config
    ("unknown_runtime", _p(r'no runtime for \\?"(nvidia[\w-]{0,30})\\?" is configured', "no runtime for ")),
    ("unknown_gpus_flag", _p(r"unknown flag: --gpus")),
    # a container start as typed (not nvidia-docker's, which adds the GPU itself); its flags are read by the rules
    ("docker_run", _p(r"(?<![\w-])(?:docker|podman)(?: container)? run\b", "docker run", "podman run",
                      "container run")),
    # the hook's `exec command: [... nvidia-container-cli ... --require=cuda>=9.0 ...]` (toolkit 1.0): the same
    # condition when a paste wraps the "unsatisfied condition" line
    ("nvc_require_arg", _p(r"--require=(cuda|driver|arch|brand) ?(>=|<=|!=|=|>|<) ?([\w.]{1,20})", "--require=")),
    # not `requirement error: invalid expression` (a toolkit too old to parse the image's NVIDIA_REQUIRE_CUDA)
    ("nvc_requirement_error", _p(r"nvidia-container-cli: requirement error: (?!invalid)",
                                 "nvidia-container-cli: requirement error")),
    ("nvc_requirement", _p(r"unsatisfied condition: (cuda|driver|arch|brand) ?(>=|<=|!=|=|>|<) ?([\w.]{1,20})",
                           "unsatisfied condition:")),
    # nvidia-docker 1.x's own check of the image's com.nvidia.cuda.version label (nvidia-docker/utils.go:
    # "unsupported CUDA version: driver %s < image %s"): the image's CUDA as the condition's version
    ("nvc_requirement", _p(r"unsupported (CUDA) version: driver [\d.]{1,10} (<) image ([\d.]{1,10})",
                           "unsupported CUDA version: driver")),
    # (Ubuntu's and the GPU operator's wrapper installs the binary as nvidia-container-cli.real)
    ("nvc_error", _p(r"nvidia-container-cli(?:\.real)?: (initialization|detection|mount|ldcache|device|container|"
                     r"permission) error: ([^\n\\\"]{0,200})", "nvidia-container-cli: ",
                     "nvidia-container-cli.real: ")),
    # nvidia-docker 1.x for an NV_GPU index or UUID the host does not have (its wrapper's log.Panicln("Error:", err)
    # of the device lookup's "invalid device: %s")
    ("nvd1_invalid_device", _p(r"nvidia-docker[^\n]{0,60}Error: invalid device: ([\w-]{1,60})",
                               "Error: invalid device: ")),
    # the tail of its mount error on a later row, where a wrap cut the line ("file creati" / "on failed: ..."): the
    # driver library the image already holds
    ("driver_file_exists", _p(r"([\w./+-]{0,200}lib(?:cuda|nvidia-[\w-]{2,30})\.so[\d.]{0,12}): file exists",
                              ": file exists")),
    # (and the runtime itself, which /etc/docker/daemon.json names, gone: `exec: "nvidia-container-runtime": ...`)
    ("nvc_hook_missing", _p(r"(nvidia-container-runtime-hook|nvidia-container-runtime|nvidia-container-cli)\\{0,3}\"?: "
                            r"(?:no such file or directory|executable file not found)", "nvidia-container-runtime",
                            "nvidia-container-cli:", 'nvidia-container-cli"', 'nvidia-container-cli\\"')),
    # nvidia-docker 1.0's volume plugin (the nvidia-docker service) failing to make the driver volume
    ("nvidia_docker1_volume", _p(r"create nvidia_driver_([\d.]{2,20}): VolumeDriver\.Create", "VolumeDriver.Create")),
    # libnvidia-container's dxcore path finding no adapter (src/nvc_info.c), matched on its own words too: pastes
    # cut or mistype the "nvidia-container-cli:" before it
    ("wsl_no_adapters", _p(r"WSL environment detected but no adapters were found")),
    # Singularity / Apptainer: a container started as typed (its flags are read by the rules: --nv, --nvccli), the
    # shell prompt inside one, and the folder it binds the host driver's libraries into (/.singularity.d/libs, on
    # LD_LIBRARY_PATH in every container it starts)
    ("singularity", _p(r"(?m)((?<![\w/-])(?:singularity|apptainer)(?: -\w{1,2})? (?:exec|run|shell|instance start)\b"
                       r"[^\n]{0,300}|/\.singularity\.d/|^(?:Singularity|Apptainer)> )",
                       "singularity ", "apptainer ", "/.singularity.d/", "Singularity> ", "Apptainer> ")),
    # ... and its --nv finding no driver files on this host (its INFO/WARNING lines, logs only: "Could not find any
    # nv files on this host!", "Could not find any nv libraries on this host!" with a hint to edit nvliblist.conf)
    ("apptainer_no_nv", _p(r"Could not find any nv (?:files|libraries) on this host", "Could not find any nv ")),
    # NVIDIA's CUDA images print their CUDA release at start (the entrypoint's "== CUDA ==" banner,
    # "CUDA Version 12.1.1"; nvidia-smi's header has a colon: "CUDA Version: 12.2")
    ("cuda_image_banner", _p(r"(?m)^\s*CUDA Version (\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\s*$", "CUDA Version ")),
    # the toolkit too old to parse the image's NVIDIA_REQUIRE_CUDA (src/cli/dsl.c "invalid expression")
    ("nvc_invalid_requirement", _p(r"nvidia-container-cli: requirement error: invalid expression")),
    ("compose_gpu_key", _p(r"(Unsupported config option for services\.[\w.-]{1,60}: '(?:runtime|gpus|device_requests)'|"
                           r"Additional propert(?:y|ies) [^\n]{0,60}'(?:devices|gpus|device_requests|capabilities)'"
                           r"[^\n]{0,40}(?:is not allowed|was unexpected))",
                           "Unsupported config option", "Additional propert")),
    # ... and as jsonschema words additionalProperties beside patternProperties (docker-compose 1.x's validation:
    # "reservations value 'devices' does not match any of the regexes: '^x-'", "'capabilities', 'devices' do not")
    ("compose_gpu_key", _p(r"'(?:devices|gpus|device_requests|capabilities)'[^\n]{0,80}\bdoe?s? not match any of the "
                           r"regexes", "not match any of the regexes")),
    # Compose v2 (compose-go) before the service-level `gpus` key: gojsonschema's "services.%s Additional property %s
    # is not allowed", compose-go v2's santhosh-tekuri/jsonschema "additional properties '%s' not allowed"
    ("compose_gpu_key", _p(r"services\.[\w.-]{1,80} [Aa]dditional propert(?:y|ies) '?(?:gpus|device_requests)'? "
                           r"(?:is )?not allowed", "dditional propert")),
    # a running container losing its devices: systemd's daemon-reload, the kubelet, open() refused on /dev/nvidia*
    ("daemon_reload", _p(r"systemctl daemon-reload")),
    ("k8s", _p(r"(kubectl|kubelet|cpu-manager-policy)", "kubectl", "kubelet", "cpu-manager-policy")),
    ("dev_eperm", _p(r'open\("/dev/nvidia(?:ctl|\d{1,2}|-uvm)"[^\n]{0,200}EPERM', 'open("/dev/nvidia')),
    ("file_too_short", _p(r"(lib[\w+-]{1,60}\.so[\d.]{0,12}): file too short", "file too short")),
    # the linker on the same empty placeholder (binutils ld "file not recognized: %E", bfd's "file truncated")
    ("file_too_short", _p(r"(lib[\w+-]{1,60}\.so[\d.]{0,12}):?\s{1,3}file not recognized: [Ff]ile truncated",
                          "ile truncated")),
    # Jetson: the toolkit's csv mode (internal/info/auto.go), L4T images and Tegra kernels, L4T's release file
    # /etc/nv_tegra_release ("# R32 (release), REVISION: 6.1, ...")
    ("jetson", _p(r"(/usr/lib/aarch64-linux-gnu/(?:tegra/)?lib(?:cu|nv)[\w-]{0,30}\.(?:so|a)\b|l4t-[\w.-]{1,40}|"
                  r"nvidia-l4t-[\w-]{1,40}|\d\.\d{1,2}\.\d{1,3}-tegra|[Jj]et[Pp]ack|Jetson|"
                  r"host-files-for-container\.d|mode as 'csv'|nv_tegra_release|# R\d{2} \(release\), REVISION)",
                  "aarch64-linux-gnu/lib", "aarch64-linux-gnu/tegra/", "l4t-", "-tegra", "etPack", "etpack", "Jetson",
                  "host-files-for-container",
                  "mode as 'csv'", "nv_tegra_release", "(release), REVISION")),
]

# The toolkit's runtime and hook (NVIDIA/nvidia-container-toolkit), CDI (tags.cncf.io/container-device-interface,
# as moby, containerd and Podman wrap it), and what a container without a GPU says when asked for nvidia-smi.
CONTAINER += [
    # the hook refuses `docker --gpus` outside its legacy mode (csv on Jetson, cdi): hook_config.go assertModeIsLegacy
    ("hook_not_legacy", _p(r"invoking the NVIDIA Container Runtime Hook directly")),
    ("hook_mode", _p(r"Auto-detected mode as '(\w{1,10})'")),
    # CDI's cache.go "unresolvable CDI devices %s": no spec under /etc/cdi or /var/run/cdi names the device
    ("cdi_unresolvable", _p(r"unresolvable CDI devices ([\w./-]{1,80}(?:=[\w,.-]{0,40})?)")),
    # moby before CDI was enabled takes a CDI name for a device path (daemon/oci_linux.go "error gathering device
    # information while adding custom device %q"); a CDI name is vendor/class=name
    ("cdi_not_enabled", _p(r'error gathering device information while adding custom device "([\w.-]{1,60}/[\w.-]{1,60}'
                           r'=[^"\n]{0,40})"', "error gathering device information")),
    # Podman before 4.1 takes a CDI name for a device path and stats it (`stat nvidia.com/gpu=0: no such file or
    # directory`): an engine too old for CDI
    ("cdi_name_as_path", _p(r"stat ([\w.-]{1,60}/[\w.-]{1,60}=[\w,.-]{0,40}): no such file or directory", "stat ")),
    # nvidia-ctk cdi generate (pkg/nvcdi: "failed to generate CDI spec: ... failed to initialize NVML: %v")
    ("cdi_generate_failed", _p(r"failed to generate CDI spec: ([^\n]{0,200})")),
    # runc / crun: the image has no nvidia-smi of its own; the toolkit mounts the host's into GPU containers only
    ("smi_not_in_container", _p(r'(exec: \\{0,3}"nvidia-smi\\{0,3}": executable file not found|'
                                r"executable file `nvidia-smi` not found)", 'nvidia-smi\\', 'nvidia-smi"',
                                "executable file `nvidia-smi`")),
    # Kubernetes: the scheduler's noderesources fit "Insufficient %v" for the GPU resource, and NVIDIA's device plugin
    # (internal/plugin/factory.go, cmd/nvidia-device-plugin/main.go) when the node's runtime gives it no NVML
    # (its first releases: "Failed to start nvml with error: %s" after "Loading NVML")
    ("k8s_no_gpu_resource", _p(r"(Insufficient nvidia\.com/gpu|If this is a GPU node, did you [^\n]{0,60}|"
                               r"Incompatible strategy detected \w{0,12}|No devices found\. Waiting indefinitely|"
                               r"Failed to start nvml with error:? {0,2}could not load NVML library)",
                               "Insufficient nvidia.com/gpu", "If this is a GPU node", "Incompatible strategy detected",
                               "No devices found. Waiting indefinitely", "Failed to start nvml with error")),
    # the Go NVML bindings the GPU exporters and device plugins use, when libnvidia-ml.so.1 is not in the container
    # (mindprince/gonvml and NVIDIA/go-nvml's nvlib info: "could not load NVML library"): the runtime that mounts the
    # driver's libraries did not run for it
    # (and NVIDIA/go-nvml's name of NVML_ERROR_LIBRARY_NOT_FOUND, as dcgm-exporter prints it: "Cannot init NVML
    # library; err: ERROR_LIBRARY_NOT_FOUND")
    ("nvml_lib_missing", _p(r"(?:[Cc]ould not load NVML library|(?<![\w_])ERROR_LIBRARY_NOT_FOUND)",
                            "ould not load NVML library", "ERROR_LIBRARY_NOT_FOUND")),
]

# NVIDIA's NGC images check the container at start: nvidia_entrypoint.sh and /opt/nvidia/entrypoint.d/*.sh (the
# banner, the driver check 50-gpu-driver-check.sh, checkSMVER.sh / the SM version check, the driver version and
# forward-compatibility check, the MOFED and SHMEM notes); sources in builder/diagnose/rules/SOURCES.md
NGC = [
    # "ERROR: This container was built for NVIDIA Driver Release %s or later, but\n       version %s was detected and
    # compatibility mode is UNAVAILABLE." (pastes reflow it: "or later,\n but version", "butversion")
    ("ngc_driver", _p(r"This container was built for NVIDIA Driver Release ([\d.]{2,20}) or later,?\s{0,20}"
                      r"(?:>\s{1,10})?but\s{0,20}(?:>\s{1,10})?version ([\d.]{2,20}) was detected",
                      "This container was built for NVIDIA Driver", span=True)),
    # the same check's status line under it: "[[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]", "[[Forward
    # compatibility was attempted on non supported HW (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) cuInit()=804]]"
    ("ngc_compat_status", _p(r"\[\[\s?([^\]\n]{2,200}?)\s?\]\]", "[[")),
    # the driver check: no libcuda.so.1 or no /dev/nvidiactl (/dev/dxg, /dev/nvgpu) in the container
    ("ngc_no_driver", _p(r"The NVIDIA Driver was not detected\.\s{1,4}GPU functionality will not be available",
                         "The NVIDIA Driver was not detected")),
    # checkSMVER: "WARNING: Detected %s GPU, which is not yet supported in this version of the container" (the GPU's
    # compute capability above the image's MAXSMVER major), then "ERROR: No supported GPU(s) detected to run this
    # container"; not its "may not yet be supported" (a newer minor of a built major: it runs)
    ("ngc_sm_too_new", _p(r"Detected ([^\n]{1,80}?) GPU,? which is not yet supported in this version of (?:the )?"
                          r"container", "which is not yet supported in this version of")),
    ("ngc_no_supported_gpu", _p(r"No supported GPU\(s\) detected to run this container")),
    # moby's oci.DevicesFromPath for `--device /dev/nvidia...` (oci/devices_linux.go "error gathering device
    # information while adding custom device %q: %s"; iSulad's "Error gathering device information while adding
    # device"): the host has no such node (its kernel module not loaded yet; Docker Desktop's VM and WSL 2 have none)
    # nvidia-docker 1.x's plugin loading nvidia-uvm with `nvidia-modprobe -u -c=0` (src/nvidia/nvidia.go LoadUVM:
    # "Could not load UVM kernel module. Is nvidia-modprobe installed?"; its first releases without the question)
    ("uvm_load_failed", _p(r"Could not load UVM kernel module")),
    ("device_node_missing", _p(r"[Ee]rror gathering device information while adding (?:custom )?device \\?\"?"
                               r"(/dev/nvidia[\w-]*)", "rror gathering device information")),
    # advice, never a cause: "NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
    # insufficient for %s.  NVIDIA recommends the use of the following flags:" and its `docker run ... --ipc=host` line
    ("ngc_shmem", _p(r"The SHMEM allocation limit is set to the default of 64MB", "SHMEM allocation limit")),
    # "NOTE: MOFED driver for multi-node communication was not detected.", "NOTE: MOFED driver was detected, but
    # nv_peer_mem driver was not detected."
    ("ngc_mofed", _p(r"MOFED driver (?:for multi-node communication was not detected|was detected, but nv_peer_mem)",
                     "MOFED driver ")),
    # the banner: "NVIDIA Release 23.03-tf2 (build 56394584)", "Container image Copyright (c) 2023, NVIDIA
    # CORPORATION & AFFILIATES.", the license lines, the framed name ("== TensorFlow ==", "== CUDA ==")
    ("ngc_banner", _p(r"(?m)(NVIDIA Release [\w.-]{0,30} ?\(build \d{1,12}\)|Container image (?:Copyright )?\(c\) "
                      r"[\d, -]{4,12}NVIDIA CORPORATION|NVIDIA Deep Learning Container License|"
                      r"^[ \t]*== [A-Z][\w .+/-]{1,40} ==[ \t]*$)",
                      "NVIDIA Release", "Container image", "Deep Learning Container License", "== ")),
]
