"""The hooks of fixtures/hookspecs.py: a plugin adds a scheduler or a provider; bad names are one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

VENDOR = '''
import contextlib
from fixtures.schedulers import SchedulerUnderTest

STARTED = []

def pytest_gangconf_schedulers():
    return {"vendor-scheduler": vendor}

def pytest_gangconf_providers():
    return {"vendor-cloud": lambda config, **context: None}

@contextlib.contextmanager
def vendor(config, *, cluster, api, run_id, run_dir, timeouts):
    yield SchedulerUnderTest("vendor-scheduler", "vendor-scheduler", None)
'''


def _pytest(tmp_path: Path, *args: str, plugin: str = VENDOR) -> subprocess.CompletedProcess:
    (tmp_path / "vendor_plugin.py").write_text(plugin)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "vendor_plugin",
                           f"--reports-dir={tmp_path / 'reports'}", "--collect-only", "-q", *args,
                           "suites/test_quorum.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_a_plugin_offers_a_scheduler_and_a_provider_by_name(tmp_path):
    proc = _pytest(tmp_path, "--scheduler=vendor-scheduler", "--provider=vendor-cloud")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tests collected" in proc.stdout


def test_an_unknown_scheduler_is_refused_with_the_known_names(tmp_path):
    proc = _pytest(tmp_path, "--scheduler=nope")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--scheduler nope: no such scheduler; known: kube-scheduler, reference, vendor-scheduler" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_an_unknown_provider_is_refused_with_the_known_names(tmp_path):
    proc = _pytest(tmp_path, "--provider=nope")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--provider nope: no such provider; known: existing, kind, local, vendor-cloud" in proc.stderr


def test_two_plugins_offering_one_name_are_refused(tmp_path):
    proc = _pytest(tmp_path, plugin=VENDOR.replace('"vendor-scheduler": vendor', '"reference": vendor'))
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--scheduler reference is offered by two plugins" in proc.stderr
