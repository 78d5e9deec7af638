"""Imports go one way: suites -> fixtures -> providers / the reference runner -> the reference core.

The test reads every module's imports (``ast``; only the two public surfaces are imported) and fails on an import
against the direction, so the layering in README's "Where things are" stays true. :data:`FOLDERS`
is that map's list of folders: every folder with Python code is in it, and the README names each.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

#: Every folder of the project with Python code (or that the map names), in the map's order.
FOLDERS = [
    "suites", "fixtures", "fixtures/providers", "fixtures/providers/local", "reference_scheduler", "reference_scheduler/framework",
    "reference_scheduler/backend", "reference_scheduler/plugins", "reference_scheduler/runner", "controlplane",
    "kind-configs", "tests", "bench", "examples", "docs", "reports",
]
#: What a suite may import besides the standard library.
SUITE_IMPORTS = {"fixtures", "kubernetes", "pytest"}
#: The harness's plugin modules: the pytest session layer, which the rest of fixtures/ serves.
SESSION_LAYER = {"plugin", "options", "session", "schedulers", "applicability", "listing", "environment",
                 "hookspecs", "own_clusters", "worker"}


def _modules(folder: str) -> list[Path]:
    return sorted(p for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in ``path``, relative ones made absolute."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            # ``from fixtures import session`` is fixtures.session: a module or a name of fixtures.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _violations(folder: str, allowed) -> list[str]:
    return [f"{path.relative_to(REPO)}:{line} imports {name}"
            for path in _modules(folder) for line, name in _imports(path) if not allowed(path, name)]


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_reference_scheduler_never_imports_the_harness_or_pytest():
    assert _violations("reference_scheduler",
                       lambda path, name: _top(name) not in {"fixtures", "suites", "tests", "bench", "pytest"}) == []


def test_the_reference_core_never_imports_its_runner():
    """The runner (the API-server loop) drives the core; the core knows nothing of an API server."""
    def allowed(path: Path, name: str) -> bool:
        inside = path.relative_to(REPO / "reference_scheduler").parts
        return (inside[0] in ("runner", "__init__.py", "__main__.py")
                or not name.startswith("reference_scheduler.runner") and _top(name) != "kubernetes")
    assert _violations("reference_scheduler", allowed) == []


def _public_surface(package: str = "reference_scheduler") -> set[str]:
    """``package`` and the names its ``__all__`` exports."""
    return {package, *(f"{package}.{name}" for name in importlib.import_module(package).__all__)}


def test_the_harness_uses_only_the_reference_schedulers_public_surface():
    surface = _public_surface()
    assert _violations("fixtures", lambda path, name: _top(name) != "reference_scheduler" or name in surface) == []


def test_suites_import_only_the_harness_package_and_the_kubernetes_client():
    """Suites read as requirements: ``from fixtures import X`` for an X of its ``__all__``, the
    Kubernetes client, pytest and the standard library; nothing deeper, so the harness may move."""
    surface = _public_surface("fixtures")

    def allowed(path: Path, name: str) -> bool:
        if _top(name) == "fixtures":
            return name in surface
        return _top(name) in SUITE_IMPORTS | {"__future__"} or _top(name) in sys.stdlib_module_names
    assert _violations("suites", allowed) == []


def test_providers_never_import_the_session_layer():
    """Providers make clusters; the pytest session uses them, never the other way round."""
    def allowed(path: Path, name: str) -> bool:
        parts = name.split(".")
        return not (parts[0] == "fixtures" and len(parts) > 1 and parts[1] in SESSION_LAYER)
    assert _violations("fixtures/providers", allowed) == []


@pytest.mark.parametrize("folder", ["fixtures", "reference_scheduler", "suites", "bench", "controlplane"])
def test_nothing_outside_tests_imports_tests(folder):
    assert _violations(folder, lambda path, name: _top(name) not in ("tests", "mutation")) == []


def test_every_folder_with_python_code_is_on_the_map():
    folders = {str(p.parent.relative_to(REPO)) for p in REPO.rglob("*.py")
               if not {".venv", "__pycache__", "build", "reports", ".git"} & set(p.parts)
               and p.parent != REPO and not str(p.relative_to(REPO)).startswith(("tests/", "gangconf.egg-info"))}
    assert folders - set(FOLDERS) == set(), "add the folder to FOLDERS and to README's Where things are"


def test_the_readme_map_names_every_folder():
    text = (REPO / "README.md").read_text()
    section = re.search(r"^## Where things are\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "README.md has no '## Where things are' section"
    missing = [f for f in FOLDERS if not re.search(rf"(^|\s|`){re.escape(f)}/", section[1])]
    assert missing == [], f"README's Where things are does not name {missing}"


@pytest.mark.parametrize("folder", ["fixtures", "fixtures/providers", "fixtures/providers/local", "reference_scheduler"])
def test_the_readme_map_names_every_module_of_the_harness_and_the_reference_root(folder):
    section = re.search(r"^## Where things are\n(.*?)(?=^## )", (REPO / "README.md").read_text(), re.S | re.M)[1]
    named = set(re.findall(r"[\w*]+\.py", section))
    modules = [p.name for p in (REPO / folder).glob("*.py") if p.name != "__init__.py"]
    missing = [m for m in modules if not any(fnmatch.fnmatch(m, pattern) for pattern in named)]
    assert missing == [], f"README's Where things are does not name {folder}/{missing}"


def _slow_markers(path: Path) -> list[tuple[int, ast.expr]]:
    """Every ``pytest.mark.slow`` in ``path``: its line and the expression (a call when it has arguments)."""
    tree = ast.parse(path.read_text())
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    found = []
    for node in ast.walk(tree):
        target = node.func if isinstance(node, ast.Call) else node
        if id(node) not in called and isinstance(target, ast.Attribute) and ast.unparse(target) == "pytest.mark.slow":
            found.append((node.lineno, node))
    return found


def test_every_slow_test_says_why_it_is_slow():
    bare = []
    for path in sorted([*(REPO / "suites").glob("test_*.py"), *(REPO / "tests").glob("test_*.py")]):
        for line, node in _slow_markers(path):
            said = isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and node.args[0].value.strip()
            if not said:
                bare.append(f"{path.relative_to(REPO)}:{line}")
    assert not bare, f'give these a reason, @pytest.mark.slow("what takes the minutes"): {bare}'
