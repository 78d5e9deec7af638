"""The scheduler settings the checks rely on (fixtures.schedconfig), the waits that follow them, and
the options that choose a profile (--scheduler-name). No cluster: collection starts nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.errors import ProfileError
from fixtures.schedconfig import SchedulerSettings, load, settings_for
from fixtures.timeouts import Timeouts

REPO = Path(__file__).resolve().parent.parent


def config(tmp_path: Path, **fields) -> Path:
    path = tmp_path / "kube-scheduler.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                    "kind": "KubeSchedulerConfiguration", **fields}))
    return path


def test_backoff_and_profiles_are_read_from_the_configuration(tmp_path: Path):
    path = config(tmp_path, podInitialBackoffSeconds=2, podMaxBackoffSeconds=20,
                  profiles=[{"schedulerName": "default-scheduler"}, {"schedulerName": "gpu-binpack"}])
    settings = settings_for("kube-scheduler", path, provider="local")
    assert (settings.initial_backoff, settings.max_backoff) == (2, 20)
    assert settings.profiles == ("default-scheduler", "gpu-binpack")
    assert not settings.default_backoff and str(path) in settings.describe()


def test_a_configuration_silent_on_backoff_and_profiles_has_v1_37_2_s_defaults(tmp_path: Path):
    settings = settings_for("kube-scheduler", config(tmp_path), provider="local")
    assert settings.default_backoff and settings.profiles == ("default-scheduler",)


def test_without_a_configuration_the_local_provider_s_own_profiles_are_known():
    settings = settings_for("kube-scheduler", None, provider="local")
    assert settings.profiles == ("default-scheduler", "gangconf-second") and settings.default_backoff


def test_a_configuration_the_harness_cannot_see_is_assumed_and_said_to_be(tmp_path: Path):
    for settings in (settings_for("kube-scheduler", None, provider="existing"),
                     settings_for("kube-scheduler", config(tmp_path, podMaxBackoffSeconds=30), provider="kind")):
        assert settings == SchedulerSettings() and settings.profiles is None
        assert settings.source.startswith("assumed: v1.37.2's defaults")
    assert settings_for("reference", None, provider="local").default_backoff


def test_a_bad_configuration_is_refused_in_one_line(tmp_path: Path):
    (tmp_path / "bad.yaml").write_text("kind: [")
    with pytest.raises(ProfileError, match="cannot be read"):
        load(tmp_path / "bad.yaml")
    (tmp_path / "other.yaml").write_text("kind: KubeProxyConfiguration")
    with pytest.raises(ProfileError, match="is not a KubeSchedulerConfiguration"):
        load(tmp_path / "other.yaml")
    with pytest.raises(ProfileError):
        settings_for("kube-scheduler", config(tmp_path, podMaxBackoffSeconds="soon"), provider="local")


def test_waits_for_a_retry_cover_a_longer_backoff_and_keep_their_own_otherwise():
    base = Timeouts()
    assert base.after_backoff(1, 10) == base and base.after_backoff(0.5, 5) == base
    longer = base.after_backoff(2, 20)
    extra = 1 + 10 * 8 ** 0.5  # the first retry 1 s later; the longest backoff 10 s x sqrt(8) longer
    assert longer.scheduler_reacts == pytest.approx(base.scheduler_reacts + extra)
    assert longer.gang_scheduled == pytest.approx(base.gang_scheduled + extra)
    assert longer.stays_pending == base.stays_pending and longer.binding_burst == base.binding_burst


def collect(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                           "suites/test_quorum.py", *args], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_several_profiles_run_every_check_that_watches_the_scheduler_once_per_profile(tmp_path: Path):
    path = config(tmp_path, profiles=[{"schedulerName": n} for n in ("default-scheduler", "a", "b")])
    proc = collect(f"--scheduler-config={path}", "--scheduler-name=a", "--scheduler-name=b",
                   "--second-scheduler-name=default-scheduler")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tests = [line for line in proc.stdout.splitlines() if "::" in line]
    assert "suites/test_quorum.py::test_gang_is_scheduled_when_the_last_member_arrives[a]" in tests
    assert "suites/test_quorum.py::test_one_gated_member_holds_the_whole_group[basic-b]" in tests
    assert len(tests) == 2 * len([line for line in collect().stdout.splitlines() if "::" in line])


def test_a_profile_the_configuration_lacks_is_refused_in_one_line(tmp_path: Path):
    proc = collect(f"--scheduler-config={config(tmp_path)}", "--scheduler-name=gpu-binpack")
    assert proc.returncode == 4 and "Traceback" not in proc.stdout + proc.stderr
    assert ("ERROR: --scheduler-name gpu-binpack: no such profile in --scheduler-config "
            f"{tmp_path / 'kube-scheduler.yaml'}; its profiles are default-scheduler") in proc.stderr, proc.stderr


def test_the_second_profile_must_differ_from_the_one_under_test():
    proc = collect("--scheduler-name=gangconf-second", "--second-scheduler-name=gangconf-second")
    assert proc.returncode == 4 and "other than the one the suite's pods use (gangconf-second)" in proc.stderr


def test_profiles_are_refused_with_the_reference_scheduler():
    proc = collect("--scheduler=reference", "--scheduler-name=default-scheduler")
    assert proc.returncode == 4 and "the reference scheduler serves its own names" in proc.stderr
