"""pytest entry point: load the gangconf harness plugin, nothing else.

This file is also what a copy of ``suites/`` outside the checkout needs next to it, with gangconf
installed (README: "Running from an installed gangconf"). pytest-kind, a dependency for its
``KindCluster``, registers a pytest plugin of its own that also defines ``--kubeconfig``; the
checkout switches it off in pyproject.toml's ``addopts``, and a copy has to say
``-p no:pytest-kind`` itself (a conftest is read after that plugin has added its options).
"""

import pytest

pytest_plugins = ["fixtures.plugin"]


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # Runs before fixtures.plugin is imported, so the clash is one line instead of a traceback.
    if pluginmanager.has_plugin("pytest-kind"):
        raise pytest.UsageError("gangconf: pytest-kind's plugin is loaded and defines --kubeconfig as well: run pytest "
                                "with -p no:pytest-kind (or addopts = -p no:pytest-kind in a pytest.ini next to "
                                "this conftest.py)")
