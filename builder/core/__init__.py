"""What every room uses: errors and exit codes, atomic files, paths (the data folders and every committed
file), YAML, the user config file, image references, build progress."""
