"""Test-only pytest plugin of the mutation check: ``--reference-mutant NAME``.

Loaded only by the project's own tests, in the child runs they start (:data:`ARGS`): it starts
the reference scheduler through ``launch.py`` with one deliberate bug applied, by answering
gangconf's ``pytest_gangconf_reference_command`` hook. gangconf itself knows nothing of mutants.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE / "launch.py"
#: What a child pytest needs to have this plugin: the option and an import path to it.
ARGS = ["-p", "mutation.plugin"]


def child_env() -> dict[str, str]:
    """The environment of a child pytest that loads this plugin (``tests/`` on its import path)."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), *([path] if path else [])])}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("gangconf").addoption(
        "--reference-mutant", default=None, metavar="NAME",
        help="test-only, for the project's mutation check (tests/test_mutation.py): start the reference scheduler "
             "with the deliberate bug NAME from tests/mutation/mutants.py; needs --scheduler reference")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--reference-mutant") and config.getoption("--scheduler") != "reference":
        raise pytest.UsageError("--reference-mutant is a test-only option of the reference scheduler: "
                                "it needs --scheduler reference")


def pytest_gangconf_reference_command(config: pytest.Config) -> list[str] | None:
    mutant = config.getoption("--reference-mutant")
    return [sys.executable, str(LAUNCHER), mutant] if mutant else None
