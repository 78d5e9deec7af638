"""conformance.html and the staging of the Allure results: pure code and files, no cluster, no browser.

The page in a real browser, and the Allure Report drawn by Allure Report 3, are in
``tests/test_report_e2e.py``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fixtures import allure_report, conformance, html_report
from fixtures.allure_labels import RUN_LABEL, TEST_LABEL

from test_report import SMALL, check, result

REPO = Path(__file__).resolve().parent.parent


class _Rows(HTMLParser):
    """The matrix's rows as the page has them: data attributes, cell classes and links."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-profile" in attrs:
            self.rows.append({"profile": attrs["data-profile"], "outcomes": attrs["data-outcomes"].split(),
                              "cells": [], "links": []})
        elif self.rows and tag == "td" and "cell" in (attrs.get("class") or ""):
            self.rows[-1]["cells"].append(attrs["class"])
        elif self.rows and tag == "a":
            self.rows[-1]["links"].append((attrs.get("class"), attrs.get("href")))


def _merged() -> dict:
    merged = conformance.merge([
        result("kube-scheduler", [
            check("GANG-A-001", "test_one", "passed", "kube-scheduler", timeline="runs/run-kube-scheduler/timelines/one.svg"),
            check("GANG-A-002", "test_two", "failed", "kube-scheduler", reason="bound 3 of 8 <partial> & stuck"),
        ]),
        result("reference", [check("GANG-A-001", "test_one", "passed", "reference")]),
        result("reference", [check("GANG-A-003", "test_three", "not applicable", "reference", reason="needs alpha")],
               profile="alpha"),
    ], SMALL)
    merged["generated"] = "2026-12-04T00:00:00+00:00"
    return merged


def test_the_matrix_has_a_row_per_behaviour_with_its_profile_outcomes_and_links():
    allure = {("run-kube-scheduler", "suites/test_a.py::test_one"): "allure/index.html#aaa",
              ("run-reference", "suites/test_a.py::test_one"): "allure/index.html#bbb"}
    timelines = {("run-kube-scheduler", "suites/test_a.py::test_one"): "../runs/run-kube-scheduler/timelines/one.svg"}
    page = html_report.render(_merged(), allure=allure, timelines=timelines, allure_index="allure/index.html")
    parser = _Rows()
    parser.feed(page)
    rows = {r["profile"] + ":" + " ".join(r["outcomes"]): r for r in parser.rows}
    assert len(parser.rows) == 4  # every behaviour of the catalogue, run or not
    assert [r["outcomes"] for r in parser.rows] == [["passed"], ["failed", "not-run"], ["not-applicable", "not-run"],
                                                    ["no-check"]]
    first = parser.rows[0]
    assert first["links"] == [("allure", "allure/index.html#aaa"), ("timeline", "../runs/run-kube-scheduler/timelines/one.svg"),
                              ("allure", "allure/index.html#bbb")]
    assert "failed" in parser.rows[1]["cells"][0]
    assert "bound 3 of 8 &lt;partial&gt; &amp; stuck" in page  # reasons are escaped
    assert rows["alpha:not-applicable not-run"]["profile"] == "alpha"
    assert page.count("<script") == 1 and "src=" not in page and "<link" not in page  # one self-contained file
    assert '<p class="summary" id="summary">2 passed, 1 failed, 1 not applicable</p>' in page


def _results_dir(tmp_path: Path) -> Path:
    """Allure results as allure-pytest writes them for one check under two schedulers, run twice on one."""
    results = tmp_path / "allure-results"
    results.mkdir()

    def write(uuid: str, scheduler: str, run: str, start: int) -> None:
        (results / f"{uuid}-result.json").write_text(json.dumps({
            "uuid": uuid, "name": "GANG-A-001 first", "start": start, "status": "passed",
            "parameters": [{"name": "scheduler", "value": f"'{scheduler}'"}],
            "labels": [{"name": "behaviour", "value": "GANG-A-001"}, {"name": RUN_LABEL, "value": run},
                       {"name": TEST_LABEL, "value": "suites/test_a.py::test_one"}]}))

    write("u-old", "kube-scheduler", "run-1", 1)
    write("u-new", "kube-scheduler", "run-2", 2)
    write("u-ref", "reference", "run-3", 3)
    (results / "c-container.json").write_text("{}")
    (results / "a-attachment.svg").write_text("<svg/>")
    return results


def test_each_result_links_to_the_latest_result_of_the_same_check_under_the_other_scheduler(tmp_path: Path):
    results = _results_dir(tmp_path)
    md5 = {u: hashlib.md5(u.encode()).hexdigest() for u in ("u-old", "u-new", "u-ref")}
    links = allure_report.cross_links(allure_report.read(results))
    assert links["u-ref-result.json"] == [{"name": "GANG-A-001 on kube-scheduler", "url": f"#{md5['u-new']}", "type": "link"}]
    assert links["u-old-result.json"] == links["u-new-result.json"] == [
        {"name": "GANG-A-001 on reference", "url": f"#{md5['u-ref']}", "type": "link"}]
    assert allure_report.index(allure_report.read(results)) == {
        ("run-1", "suites/test_a.py::test_one"): md5["u-old"], ("run-2", "suites/test_a.py::test_one"): md5["u-new"],
        ("run-3", "suites/test_a.py::test_one"): md5["u-ref"]}
    staged = tmp_path / "staged"
    assert allure_report.stage(results, staged) == 3
    assert sorted(p.name for p in staged.iterdir()) == sorted(p.name for p in results.iterdir())
    assert json.loads((staged / "u-ref-result.json").read_text())["links"] == links["u-ref-result.json"]
    assert "links" not in json.loads((results / "u-ref-result.json").read_text())  # the run's own files are left alone


def test_the_report_configuration_groups_by_profile_behaviour_scheduler_in_one_file():
    text = allure_report.config_text("gangconf conformance")
    assert '"groupBy": ["parentSuite", "suite", "subSuite"]' in text and '"singleFile": true' in text
    assert json.dumps([RUN_LABEL, TEST_LABEL]) in text


def _reports(tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    reports.mkdir()
    merged = _merged()
    (reports / "conformance.json").write_text(json.dumps(merged))
    svg = reports / "runs" / "run-kube-scheduler" / "timelines" / "one.svg"
    svg.parent.mkdir(parents=True)
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    return reports


def test_without_node_the_page_is_written_and_one_line_says_why(tmp_path: Path):
    reports = _reports(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "html", f"--reports-dir={reports}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60, env={"PATH": "/nonexistent"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("gangconf: no Node.js on PATH: Allure Report 3 needs it"), lines
    assert lines[1] == f"gangconf: {reports / 'html' / 'conformance.html'}: 2 passed, 1 failed, 1 not applicable"
    page = (reports / "html" / "conformance.html").read_text()
    assert 'href="../runs/run-kube-scheduler/timelines/one.svg"' in page and "No Allure Report was drawn" in page


def test_without_a_merged_report_the_command_says_what_to_run(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "html", f"--reports-dir={tmp_path}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == f"gangconf: no {tmp_path / 'conformance.json'}: run the suites first (make conformance)"


def test_the_makefile_installs_the_allure_release_the_report_names():
    pinned = [line.split(":=", 1)[1].strip() for line in (REPO / "Makefile").read_text().splitlines()
              if line.startswith("ALLURE_VERSION")]
    assert pinned == [allure_report.ALLURE_VERSION]


def test_a_failed_allure_report_is_one_line_and_the_page_is_written_all_the_same(tmp_path: Path):
    if shutil.which("node") is None:
        pytest.skip("no Node.js on PATH: the Allure Report is not tried without it")
    reports = _reports(tmp_path)
    (reports / "allure-results").mkdir()
    broken = tmp_path / "allure"
    broken.write_text("#!/bin/sh\necho 'reading results' ; echo 'boom: no plugin' >&2; exit 3\n")
    broken.chmod(0o755)
    status, lines = html_report.write(reports, allure=broken)
    assert status == 1
    assert lines == ["gangconf: Allure Report failed (exit 3): boom: no plugin",
                     f"gangconf: {reports / 'html' / 'conformance.html'}: 2 passed, 1 failed, 1 not applicable"]
    assert not list((reports / "html").glob(".allure*"))  # the staged copy and configuration are gone
