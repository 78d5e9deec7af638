"""Bad input gets one line naming the problem and the fix: no traceback, nothing left running."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
NO_GO_PATH = "/usr/bin:/bin"


def run(args: list[str], *, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def gangconf_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [l for l in (proc.stdout + proc.stderr).splitlines() if "gangconf:" in l]


def test_build_without_go_says_what_to_install(tmp_path: Path):
    proc = run(["-m", "fixtures.providers.local.binaries", "build"], env={"PATH": NO_GO_PATH, "GANGCONF_CACHE": str(tmp_path)})
    assert proc.returncode == 2, proc
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "the Go toolchain is not on PATH" in proc.stderr and "--kubeconfig" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_suite_without_go_and_without_binaries_stops_with_one_line(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                "suites/test_quorum.py"], env={"PATH": NO_GO_PATH, "GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = gangconf_lines(proc)
    assert any("the Go toolchain is not on PATH" in l for l in lines), proc.stdout


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_cluster_is_one_line(tmp_path: Path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": f"https://127.0.0.1:{_closed_port()}",
                                                "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    }))
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                f"--kubeconfig={kubeconfig}", "suites/test_quorum.py"])
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert any("cannot reach the cluster at https://127.0.0.1:" in l for l in gangconf_lines(proc)), proc.stdout


def test_malformed_profile_is_one_line(tmp_path: Path):
    profile = tmp_path / "broken.yaml"
    profile.write_text("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nfeatureGates: [\n")
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                f"--profile={profile}", "suites/test_quorum.py"])
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert any("broken.yaml:" in l and "is not valid YAML" in l for l in gangconf_lines(proc)), proc.stdout


def test_profile_with_an_unknown_gate_is_one_line_before_anything_starts(tmp_path: Path):
    profile = tmp_path / "typo.yaml"
    profile.write_text("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nfeatureGates:\n  GangScheduling: true\n")
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                f"--profile={profile}", "suites/test_quorum.py"], env={"GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = gangconf_lines(proc)
    assert len(lines) == 1 and "feature gate GangScheduling does not exist in v1.37" in lines[0], proc.stdout
    assert not (tmp_path / "cache").exists(), "something was built or started for a profile that was refused"


def test_second_scheduler_name_that_is_the_first_one_is_refused_in_one_line(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                "--second-scheduler-name=default-scheduler", "suites/test_consistency.py"])
    assert proc.returncode == 4, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    errors = [l for l in out.splitlines() if "--second-scheduler-name must name" in l]
    assert len(errors) == 1, out


def test_build_of_a_malformed_version_is_one_line(tmp_path: Path):
    proc = run(["-m", "fixtures.providers.local.binaries", "build", "--version", "1.36"], env={"GANGCONF_CACHE": str(tmp_path / "c")})
    assert proc.returncode == 2, proc
    assert proc.stderr.strip() == ("gangconf: Kubernetes version '1.36' is not of the form vMAJOR.MINOR.PATCH "
                                   "(for example v1.37.2)"), proc.stderr
    assert not (tmp_path / "c").exists()


def test_suite_with_a_malformed_k8s_version_is_one_line_before_anything_starts(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                "--k8s-version=v1.37", "suites/test_quorum.py"], env={"GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = gangconf_lines(proc)
    assert len(lines) == 1 and "Kubernetes version 'v1.37' is not of the form vMAJOR.MINOR.PATCH" in lines[0], proc.stdout
    assert not (tmp_path / "cache").exists()


def test_upgrade_checks_are_not_applicable_in_a_normal_run_and_build_nothing(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", f"--reports-dir={tmp_path / 'r'}",
                "suites/test_upgrade.py"], env={"PATH": NO_GO_PATH, "GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stdout
    skipped = [l for l in proc.stdout.splitlines() if l.startswith("SKIPPED")]
    assert len(skipped) == 4 and all("not applicable: needs the upgrade profile (--profile upgrade)" in l
                                     for l in skipped), proc.stdout
    assert not (tmp_path / "cache").exists(), "the upgrade suite built or started something without being asked"


def test_upgrade_run_without_go_stops_with_one_line(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                "--profile=upgrade", "suites/test_upgrade.py"],
               env={"PATH": NO_GO_PATH, "GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 4, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = gangconf_lines(proc)
    assert len(lines) == 1 and "the Go toolchain is not on PATH" in lines[0], proc.stdout


def test_a_profile_for_another_release_is_one_line_before_anything_starts(tmp_path: Path):
    proc = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
                "--profile=gang-alpha-1.36", "suites/test_quorum.py"], env={"GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 4, proc.stdout
    lines = gangconf_lines(proc)
    assert len(lines) == 1 and "is for v1.36.3 (its node images) but the local cluster runs v1.37.2" in lines[0], proc.stdout
    assert not (tmp_path / "cache").exists()
