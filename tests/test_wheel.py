"""gangconf as a user installs it: its wheel, in a fresh virtualenv, used from outside the checkout.

The wheel is built offline (no build isolation, no index) from a copy of what the build reads, so
the checkout gets no ``build/`` and two runs never share one. The virtualenv has no system
site-packages; its third-party dependencies come from this virtualenv's site-packages through a
``.pth`` line to a directory of links that leaves out gangconf's own editable install, so only the
wheel can provide ``fixtures`` and ``reference_scheduler``. Every command runs in a directory outside
the checkout with a copy of ``suites/`` and the root ``conftest.py``, as a user's would be.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("fixtures", "reference_scheduler")
#: What building the wheel reads (pyproject.toml names README.md and kind-configs/).
BUILD_INPUTS = ("pyproject.toml", "README.md", *PACKAGES, "kind-configs")
#: A copy of the suites needs this beside its conftest.py (the checkout has it in pyproject.toml's addopts).
NO_KIND = ("-p", "no:pytest-kind")

pytestmark = [pytest.mark.wheel, pytest.mark.xdist_group("wheel")]


@dataclasses.dataclass
class Installed:
    wheel: Path
    python: Path
    site_packages: Path
    #: a directory outside the checkout holding copies of suites/ and conftest.py
    work: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.python), *args], cwd=self.work, env=self.env, capture_output=True,
                              text=True, timeout=timeout)


def _check(proc: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"{what} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _dependencies_without_gangconf(into: Path) -> Path:
    """Links to this virtualenv's installed distributions, gangconf's editable install left out."""
    into.mkdir()
    for site in sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}):
        for entry in Path(site).iterdir():
            name = entry.name
            if (name.startswith(("__editable__", "gangconf")) or name.endswith((".pth", ".egg-link"))
                    or name in PACKAGES or (into / name).exists()):
                continue
            (into / name).symlink_to(entry)
    return into


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    setuptools = metadata.version("setuptools")
    if int(setuptools.split(".")[0]) < 77:
        pytest.fail(f"setuptools {setuptools} in this virtualenv cannot build gangconf (pyproject.toml needs >= 77): "
                    "run make setup", pytrace=False)
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in BUILD_INPUTS:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=ignore)
        else:
            shutil.copy2(REPO / name, source / name)
    dist = root / "dist"
    _check(subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "-w", str(dist), str(source)], capture_output=True, text=True, timeout=300),
           "pip wheel")
    (wheel,) = dist.glob("gangconf-*.whl")

    venv = root / "venv"
    _check(subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True,
                          timeout=120), "python -m venv")
    python = venv / "bin" / "python"
    _check(subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True, timeout=300), "pip install")
    site_packages = Path(_check(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                               capture_output=True, text=True, timeout=60), "the venv's python")
                         .stdout.strip())
    deps = _dependencies_without_gangconf(root / "deps")
    (site_packages / "gangconf-test-dependencies.pth").write_text(f"{deps}\n")

    work = root / "work"
    work.mkdir()
    shutil.copytree(REPO / "suites", work / "suites", ignore=ignore)
    shutil.copy2(REPO / "conftest.py", work / "conftest.py")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHON", "GANGCONF_")) and k != "VIRTUAL_ENV"}
    return Installed(wheel=wheel, python=python, site_packages=site_packages, work=work, env=env)


def _collected(output: str) -> int:
    found = re.search(r"(\d+) tests? collected", output)
    assert found, f"no 'N tests collected' line in:\n{output[-3000:]}"
    return int(found[1])


def test_the_wheel_has_every_package_and_data_file(installed: Installed) -> None:
    """Each directory with an ``__init__.py`` and each non-Python file of the packages is in the wheel.

    A hand list of packages in pyproject.toml once left ``reference_scheduler.plugins`` out.
    """
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    in_wheel = {name.rsplit("/", 1)[0] for name in names if name.endswith("/__init__.py")}
    checkout = {init.parent.relative_to(REPO).as_posix() for package in PACKAGES
                for init in (REPO / package).rglob("__init__.py") if "__pycache__" not in init.parts}
    assert checkout <= in_wheel, f"packages missing from the wheel: {sorted(checkout - in_wheel)}"
    data = {path.relative_to(REPO).as_posix() for package in PACKAGES for path in (REPO / package).rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts}
    assert data, "no data files found in the checkout's packages"
    assert data <= names, (f"files the packages read are missing from the wheel: {sorted(data - names)} "
                           "(pyproject.toml [tool.setuptools.package-data])")
    profiles = {f"gangconf-{installed.wheel.name.split('-')[1]}.data/data/share/gangconf/kind-configs/{p.name}"
                for p in (REPO / "kind-configs").glob("*.yaml")}
    assert profiles <= names, f"profiles missing from the wheel: {sorted(profiles - names)}"


def test_the_packages_come_from_the_wheel(installed: Installed) -> None:
    proc = _check(installed.run("-c", "import sys, fixtures, reference_scheduler.plugins as p; "
                                      "print(fixtures.__file__); print(p.__file__); print('\\n'.join(sys.path))"),
                  "import")
    fixtures_file, plugins_file, *path = proc.stdout.splitlines()
    for imported in (fixtures_file, plugins_file):
        assert Path(imported).is_relative_to(installed.site_packages), f"{imported} is not the installed copy"
    leaked = [entry for entry in path if entry and Path(entry).resolve().is_relative_to(REPO)]
    assert not leaked, f"the checkout is on the installed python's sys.path: {leaked}"


def test_reference_scheduler_help(installed: Installed) -> None:
    proc = _check(installed.run("-m", "reference_scheduler", "--help"), "python -m reference_scheduler --help")
    assert proc.stdout.startswith("usage: python -m reference_scheduler"), proc.stdout
    assert "--kubeconfig" in proc.stdout


def test_the_copied_suites_collect_as_in_the_checkout(installed: Installed) -> None:
    here = _check(subprocess.run([sys.executable, "-m", "pytest", "suites", "--collect-only", "-q", "-p",
                                  "no:cacheprovider"], cwd=REPO, capture_output=True, text=True, timeout=120),
                  "collecting in the checkout")
    there = _check(installed.run("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *NO_KIND),
                   "collecting the copied suites")
    assert not re.search(r"\d+ errors?\b", there.stdout), there.stdout[-3000:]
    assert _collected(there.stdout) == _collected(here.stdout) > 100


def test_the_copy_without_no_kind_is_told_in_one_line(installed: Installed) -> None:
    """pytest-kind's own plugin clashes on --kubeconfig; the copied conftest.py says how to switch it off."""
    proc = installed.run("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert proc.returncode != 0, proc.stdout
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "-p no:pytest-kind" in lines[0], "\n".join(lines[-40:])


def test_the_profiles_are_found_installed(installed: Installed) -> None:
    proc = _check(installed.run("-c", "from fixtures.profiles import Profile; print(Profile.resolve('beta').path)"),
                  "resolving a profile")
    assert Path(proc.stdout.strip()).is_relative_to(installed.python.parent.parent / "share" / "gangconf"), proc.stdout


def test_building_the_control_plane_needs_a_checkout(installed: Installed) -> None:
    """The Go module in controlplane/ is the checkout's: an installed gangconf says so in one line."""
    proc = installed.run("-m", "fixtures.providers.local.binaries", "path")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "controlplane/ Go module of a gangconf checkout" in lines[0], proc.stderr
