"""pytest entry point: load the gangconf harness plugin, nothing else."""

pytest_plugins = ["fixtures.plugin"]
