"""FAKES for what cannot exist on the build machine: GPUs, NVIDIA drivers, Windows and WSL2 hosts."""
