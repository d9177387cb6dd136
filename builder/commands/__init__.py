"""Every Click command, thin: parse, call one function, print; one module per topic."""
