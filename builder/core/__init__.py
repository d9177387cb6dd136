"""What every room uses: errors and exit codes, atomic files, YAML, the user config file, image references,
build progress."""
