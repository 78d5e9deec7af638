"""The result bundle: what it holds, and a verify that notices every change made to it after."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from fixtures import bundle, results as results_mod

from test_report import _write, check, result

REPO = Path(__file__).resolve().parent.parent
DAY = dt.date(2026, 12, 4)


def _reports(tmp_path: Path) -> Path:
    """A reports directory after a small matrix: two complete runs, their JUnit files, logs and a timeline."""
    reports = tmp_path / "reports"
    for scheduler, outcome in (("kube-scheduler", "passed"), ("reference", "failed")):
        data = result(scheduler, [check("GANG-QUORUM-001", "test_one", outcome, scheduler, reason="x",
                                        timeline=f"runs/run-{scheduler}/timelines/one.svg")])
        data["run"].update(junitxml=str(reports / f"junit-beta-{scheduler}.xml"), kube_scheduler_sha256="ab" * 32,
                           gangconf={"version": "0.1.0", "commit": "c0ffee", "modified": False})
        _write(reports, data)
        (reports / f"junit-beta-{scheduler}.xml").write_text("<testsuites/>")
        logs = reports / "runs" / f"run-{scheduler}" / "logs"
        logs.mkdir(parents=True)
        (logs / "kube-scheduler.log").write_text(f"{scheduler} log\n")
        (logs.parent / "timelines").mkdir()
        (logs.parent / "timelines" / "one.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    results_mod.write_merged(reports)
    return reports


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def test_the_bundle_holds_the_report_its_runs_and_their_environment(tmp_path: Path):
    made = bundle.make(_reports(tmp_path), today=DAY)
    assert made.name == "gangconf-results-v1.37.2-2026-12-04.tar.gz"
    files = {name.split("/", 1)[1]: data for name, data in _members(made).items()}
    top = {name.split("/", 1)[0] for name in _members(made)}
    assert top == {"gangconf-results-v1.37.2-2026-12-04"}
    assert sorted(files) == sorted([
        "SHA256SUMS", "conformance.html", "conformance.json", "conformance.md", "environment.json",
        "junit/junit-beta-kube-scheduler.xml", "junit/junit-beta-reference.xml",
        "logs/run-kube-scheduler/kube-scheduler.log", "logs/run-reference/kube-scheduler.log",
        "results/beta-kube-scheduler.json", "results/beta-reference.json",
        "timelines/run-kube-scheduler/one.svg", "timelines/run-reference/one.svg"])
    sums = dict(reversed(line.split("  ")) for line in files["SHA256SUMS"].decode().splitlines())
    assert sums == {name: hashlib.sha256(data).hexdigest() for name, data in files.items() if name != "SHA256SUMS"}
    environment = json.loads(files["environment.json"])
    assert environment["server_versions"] == ["v1.37.2"]
    run = environment["runs"][0]
    assert (run["scheduler"], run["feature_gates"], run["runtime_config"], run["kube_scheduler_sha256"],
            run["gangconf"]["commit"]) == ("kube-scheduler", {"GenericWorkload": True},
                                           {"scheduling.k8s.io/v1beta1": "true"}, "ab" * 32, "c0ffee")
    assert b'href="timelines/run-kube-scheduler/one.svg"' in files["conformance.html"]


def test_verify_prints_the_verdict_of_an_untouched_bundle(tmp_path: Path):
    made = bundle.make(_reports(tmp_path), today=DAY)
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "verify", str(made)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (f"gangconf: verified {made.name}: 12 files match SHA256SUMS; 2 runs on v1.37.2, "
                                   "kube-scheduler, reference: 1 passed, 1 failed, 0 not applicable")


def _rewrite(path: Path, change) -> None:
    """Rewrite the bundle with ``change(files)`` applied to its files (paths under the top folder)."""
    files = _members(path)
    top = next(iter(files)).split("/", 1)[0]
    inner = {name.split("/", 1)[1]: data for name, data in files.items()}
    change(inner)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in inner.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _resum(files: dict[str, bytes]) -> None:
    files["SHA256SUMS"] = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(files.items())
                                  if n != "SHA256SUMS").encode()


def _claim_a_pass(files: dict[str, bytes]) -> None:
    merged = json.loads(files["conformance.json"])
    merged["counts"] = {"passed": 2, "failed": 0, "not applicable": 0}
    merged["summary"] = "2 passed, 0 failed, 0 not applicable"
    files["conformance.json"] = json.dumps(merged).encode()


def _flip_a_result(files: dict[str, bytes]) -> None:
    data = json.loads(files["results/beta-reference.json"])
    data["checks"][0]["outcome"] = "passed"
    files["results/beta-reference.json"] = json.dumps(data).encode()


@pytest.mark.parametrize(("change", "says"), [
    (lambda f: f.update({"logs/run-reference/kube-scheduler.log": b"edited\n"}),
     "SHA256SUMS does not match: logs/run-reference/kube-scheduler.log: sha256 differs"),
    (lambda f: f.update({"extra.txt": b"x"}), "SHA256SUMS does not match: extra.txt: in the bundle, not listed"),
    (lambda f: f.pop("junit/junit-beta-reference.xml"),
     "SHA256SUMS does not match: junit/junit-beta-reference.xml: listed, not in the bundle"),
    (lambda f: f.pop("SHA256SUMS"), "no SHA256SUMS"),
    # Changes made with a new manifest: the verdict is checked against the results themselves.
    (lambda f: (_claim_a_pass(f), _resum(f)),
     "conformance.json says '2 passed, 0 failed, 0 not applicable', its results say '1 passed, 1 failed, 0 not applicable'"),
    (lambda f: (_flip_a_result(f), _resum(f)),
     "conformance.json says '1 passed, 1 failed, 0 not applicable', its results say '2 passed, 0 failed, 0 not applicable'"),
    (lambda f: (f.update({"conformance.md": b"# report\n\n2 passed, 0 failed, 0 not applicable\n"}), _resum(f)),
     "conformance.md does not close with the verdict '1 passed, 1 failed, 0 not applicable'"),
    (lambda f: (f.pop("results/beta-reference.json"), _resum(f)),
     "conformance.json was built from results/beta-reference.json, which the bundle lacks"),
])
def test_verify_refuses_a_changed_bundle_saying_what_changed(tmp_path: Path, change, says):
    made = bundle.make(_reports(tmp_path), today=DAY)
    _rewrite(made, change)
    with pytest.raises(bundle.BundleError) as info:
        bundle.verify(made)
    assert str(info.value) == says
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "verify", str(made)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.strip() == f"gangconf: {made}: NOT VERIFIED: {says}"


def test_a_file_that_is_no_bundle_and_a_report_without_runs_are_one_line(tmp_path: Path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_text("not a tar")
    with pytest.raises(bundle.BundleError, match="not a gzip'd tar file"):
        bundle.verify(junk)
    with pytest.raises(bundle.BundleError, match="^no such file: give the path of a gangconf-results-"):
        bundle.verify(tmp_path / "missing.tar.gz")
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "bundle", f"--reports-dir={tmp_path}"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.strip() == (f"gangconf: cannot make the bundle: no {tmp_path / 'conformance.json'}: run the "
                                   "suites first (make conformance)")


def test_the_allure_report_is_bundled_only_when_drawn_after_the_merged_report(tmp_path: Path):
    import os

    reports = _reports(tmp_path)
    index = reports / "html" / "allure" / "index.html"
    index.parent.mkdir(parents=True)
    index.write_text("<html>allure</html>")
    merged = reports / "conformance.json"
    os.utime(index, (merged.stat().st_mtime - 60,) * 2)  # drawn before the last merge: of other runs
    assert not any(name.endswith("/allure/index.html") for name in _members(bundle.make(reports, today=DAY)))
    os.utime(index, (merged.stat().st_mtime + 60,) * 2)
    files = _members(bundle.make(reports, today=DAY))
    assert any(name.endswith("/allure/index.html") for name in files)
