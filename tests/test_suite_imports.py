"""The suites read as requirements: they import the ``fixtures`` package surface, the Kubernetes
client, pytest and the standard library, and nothing deeper (so the harness may move its code)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import fixtures

SUITES = sorted((Path(__file__).resolve().parent.parent / "suites").glob("test_*.py"))
ALLOWED = {"fixtures", "kubernetes", "pytest", "__future__"}


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, node.module or "", [a.name for a in node.names]


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.name)
def test_a_suite_imports_only_the_fixtures_surface(path):
    wrong = []
    for line, module, names in _imports(path):
        top = module.split(".")[0]
        if module.startswith("fixtures."):
            wrong.append(f"{path.name}:{line}: from {module} (import from the fixtures package instead)")
        elif top == "fixtures":
            wrong += [f"{path.name}:{line}: fixtures has no {n}" for n in names or () if n not in fixtures.__all__]
        elif top not in ALLOWED and top not in sys.stdlib_module_names:
            wrong.append(f"{path.name}:{line}: imports {module}")
    assert not wrong, "\n".join(wrong)


def test_every_name_of_the_surface_resolves():
    for name in fixtures.__all__:
        assert getattr(fixtures, name) is not None, name
