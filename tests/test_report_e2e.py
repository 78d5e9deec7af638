"""The reports a person looks at, end to end: real runs, Allure Report 3, a real browser, the bundle.

Two child runs of ``suites/test_deadlock.py`` (the deadlock demonstration and GANG-CYCLE-003),
one per scheduler, side by side (``-n 2``) on local clusters, with the recorder's heartbeat
every 2 s (``-p heartbeat_often``). Then, as ``make report`` and ``make bundle`` do, the merged
report, the Allure Report and ``conformance.html``, opened in headless Chromium: the matrix's
rows, its filter, a cell's links to the check's Allure result and timeline picture, the
pictures themselves, and the Allure Report's tree. Screenshots go to ``reports/screenshots/``.

Without Chromium the browser checks are skipped with the reason; without Node.js (or Allure
Report not installed by ``make report``), the Allure checks are.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import browser
from fixtures import allure_report, html_report
from fixtures.catalogue import CATALOGUE
from fixtures.timeline_svg import POD_COLOURS

REPO = Path(__file__).resolve().parent.parent
SCREENSHOTS = REPO / "reports" / "screenshots"
ALLURE = REPO / ".tools" / f"allure-{allure_report.ALLURE_VERSION}" / "node_modules" / ".bin" / "allure"
SCHEDULERS = ("kube-scheduler", "reference")
CHECK = "suites/test_deadlock.py::test_gang_podgroups_prevent_the_deadlock"
DEMO = "suites/test_deadlock.py::test_plain_pods_deadlock_when_two_jobs_race_for_gpus"


@pytest.fixture(scope="module")
def reports(tmp_path_factory, pytestconfig) -> Iterator[dict]:
    """The reports directory after the two runs and ``python -m fixtures.report html``, and what the runs printed.

    Made once per session: under ``-n`` the module's tests may land on several workers, which
    share it through a directory of the session's (the first to come makes it, the others wait).
    """
    session = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if session is None:
        yield _made(tmp_path_factory.mktemp("reports"), pytestconfig)
        return
    shared = tmp_path_factory.getbasetemp().parent / f"report-e2e-{session}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done, failed = shared / "made.json", shared / "failed.txt"
        if not done.exists() and not failed.exists():
            try:
                made = _made(shared / "reports", pytestconfig)
            except AssertionError as exc:
                failed.write_text(str(exc))
                raise
            done.write_text(json.dumps({**made, "dir": str(made["dir"])}))
    if failed.exists():
        pytest.fail(f"making the reports failed (on another worker):\n{failed.read_text()}", pytrace=False)
    made = json.loads(done.read_text())
    yield {**made, "dir": Path(made["dir"])}


def _made(reports: Path, pytestconfig) -> dict:
    reports.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), os.environ.get("PYTHONPATH", "")])}
    runs = {scheduler: subprocess.Popen(  # side by side: the two clusters start and wait at the same time
        [sys.executable, "-m", "pytest", "suites/test_deadlock.py", f"--scheduler={scheduler}", "-n", "2",
         *([f"--k8s-version={pytestconfig.getoption('--k8s-version')}"] if pytestconfig.getoption("--k8s-version") else []),
         f"--reports-dir={reports}", f"--alluredir={reports / 'allure-results'}",
         f"--junitxml={reports / f'junit-beta-{scheduler}.xml'}", "-p", "heartbeat_often", "-p", "no:cacheprovider"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for scheduler in SCHEDULERS}
    printed = {}
    try:
        for scheduler, run in runs.items():
            out, err = run.communicate(timeout=900)
            assert run.returncode == 0, out[-4000:] + err[-2000:]
            printed[scheduler] = out
    finally:
        for run in runs.values():
            if run.poll() is None:  # the other run failed first: end this one (SIGTERM stops its cluster)
                run.terminate()
                run.communicate(timeout=120)
    merged = subprocess.run([sys.executable, "-m", "fixtures.report", "merge", "--include-partial",
                             f"--reports-dir={reports}"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert merged.returncode == 0, merged.stderr
    drawn = subprocess.run([sys.executable, "-m", "fixtures.report", "html", f"--reports-dir={reports}", f"--allure={ALLURE}"],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    return {"dir": reports, "printed": printed, "html": drawn.stdout}


def _needs_browser():
    if browser.missing():
        pytest.skip(browser.missing())


def _needs_allure():
    why = html_report.allure_cli(ALLURE)
    if why:
        pytest.skip(why)


def _url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")


def _visible_text(dom: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


def test_a_run_under_xdist_prints_each_finished_check_and_the_heartbeat_of_its_waits(reports):
    for scheduler, out in reports["printed"].items():
        lines = out.splitlines()
        finished = [line for line in lines if re.fullmatch(
            rf"gangconf: GANG-CYCLE-003 +{scheduler} +passed +\d+\.\d s  test_gang_podgroups_prevent_the_deadlock", line)]
        assert len(finished) == 1, out[-3000:]
        beats = [line for line in lines if re.fullmatch(
            rf"gangconf: GANG-CYCLE-003 +{scheduler} +watching \d+ s, \d+ s left: never job-[ab], which cannot fit "
            rf"beside job-[ab], never has a worker bound", line)]
        assert len(beats) >= 3, out[-3000:]  # from a worker, through the controller, every 2 s of the 20 s window
        assert any(re.match(rf"gangconf: demonstration +{scheduler} +watching", line) for line in lines), out[-3000:]


def _allure_results(reports) -> list[dict]:
    return list(allure_report.read(reports["dir"] / "allure-results").values())


def test_the_allure_results_are_named_and_grouped_profile_behaviour_scheduler(reports):
    results = _allure_results(reports)
    assert len(results) == 4
    for result in results:
        labels = {k: v[0] for k, v in allure_report.labels_of(result).items()}
        scheduler = labels["subSuite"]
        assert scheduler in SCHEDULERS and result["attachments"][0]["name"] == "timeline"
        if labels["gangconf.test"] == CHECK:
            assert (labels["parentSuite"], labels["suite"], labels["behaviour"]) == ("beta", "GANG-CYCLE-003", "GANG-CYCLE-003")
            assert result["name"] == f"GANG-CYCLE-003 {CATALOGUE['GANG-CYCLE-003'].title}"
        else:
            assert labels["gangconf.test"] == DEMO and labels["parentSuite"] == "demonstrations"
            assert result["name"] == "Demonstration: the deadlock gang scheduling exists to prevent"


def test_conformance_html_shows_the_matrix_and_filters_it_in_a_browser(reports):
    _needs_browser()
    page = reports["dir"] / "html" / "conformance.html"
    merged = json.loads((reports["dir"] / "conformance.json").read_text())
    dom = browser.dom(_url(page))
    rows = re.findall(r'<tr class="b( hidden)?" data-profile="([^"]+)" data-outcomes="([^"]*)"', dom)
    assert len(rows) == len(merged["behaviours"]) and not any(hidden for hidden, _, _ in rows)
    assert f"{len(rows)} of {len(rows)} behaviours shown" in _visible_text(dom)
    # The address filters: only the behaviour that passed is left.
    filtered = browser.dom(_url(page, "outcome=passed"))
    shown = re.findall(r'<tr class="b" data-profile="[^"]+" data-outcomes="[^"]*"><td class="id">([^<]+)</td>', filtered)
    assert shown == ["GANG-CYCLE-003"], shown
    assert f"1 of {len(rows)} behaviours shown" in _visible_text(filtered)
    shot = browser.screenshot(_url(page, "outcome=passed"), SCREENSHOTS / "conformance.png", height=700)
    assert browser.colours(shot)[browser.hex_colour("#16a34a")] > 500  # the passed badges are drawn


def _cell_links(reports) -> dict[str, list[str]]:
    page = (reports["dir"] / "html" / "conformance.html").read_text()
    row = re.search(r'<td class="id">GANG-CYCLE-003</td>.*?</tr>', page, flags=re.S).group(0)
    return {kind: re.findall(rf'<a class="{kind}" href="([^"]+)"', row) for kind in ("allure", "timeline")}


def test_a_cells_timeline_link_opens_the_picture_of_its_check(reports):
    _needs_browser()
    links = _cell_links(reports)["timeline"]
    assert len(links) == 2  # one per scheduler
    picture = (reports["dir"] / "html" / links[0]).resolve()
    dom = browser.dom(_url(picture))
    assert "<svg" in dom and "PodGroup job-a (minCount 8)" in dom and "PodGroup job-b (minCount 8)" in dom
    shot = browser.screenshot(_url(picture), SCREENSHOTS / "timeline-gang-cycle-003.png", width=1000, height=460)
    assert browser.colours(shot)[browser.hex_colour(POD_COLOURS["bound"])] > 2000


def test_the_deadlock_demonstration_picture_shows_the_standoff_the_run_reproduced(reports):
    _needs_browser()
    for scheduler in SCHEDULERS:
        result = json.loads(next((reports["dir"] / "results" / "partial").glob(f"*-beta-{scheduler}.json")).read_text())
        run = result["run"]["run"]
        picture = next((reports["dir"] / "runs" / run / "timelines").glob("*test-plain-pods-deadlock*.svg"))
        dom = browser.dom(_url(picture))
        # What the demonstration itself said it reproduced (six and six, as a rule).
        a, b = re.search(r"reproduced the deadlock: job-a holds (\d)/8 GPUs and job-b holds (\d)/8",
                         reports["printed"][scheduler]).groups()
        assert f"job-a: at most {a} of 8 bound at once; job-b: at most {b} of 8 bound at once" in dom, scheduler
        shot = browser.screenshot(_url(picture), SCREENSHOTS / f"timeline-deadlock-{scheduler}.png", width=1000, height=420)
        drawn = browser.colours(shot)
        # Twelve workers bound, four unschedulable: the bars' areas are about three to one.
        bound, stuck = drawn[browser.hex_colour(POD_COLOURS["bound"])], drawn[browser.hex_colour(POD_COLOURS["unschedulable"])]
        assert stuck > 1000 and 2.2 < bound / stuck < 3.8, (bound, stuck)


def test_the_allure_report_opens_on_its_tree_and_a_cell_leads_to_its_result(reports):
    _needs_browser()
    _needs_allure()
    index = reports["dir"] / "html" / "allure" / "index.html"
    text = _visible_text(browser.dom(_url(index)))
    assert "Total 4" in text and "beta" in text and "demonstrations" in text, text[:2000]
    browser.screenshot(_url(index), SCREENSHOTS / "allure-index.png")
    links = _cell_links(reports)["allure"]
    assert len(links) == 2
    for link, scheduler, other in zip(links, SCHEDULERS, reversed(SCHEDULERS)):
        text = _visible_text(browser.dom(_url((reports["dir"] / "html" / link).resolve()).replace("%23", "#")))
        # The breadcrumb is the tree's path: profile, behaviour, scheduler, then the check's name.
        assert f"beta GANG-CYCLE-003 {scheduler} GANG-CYCLE-003 {CATALOGUE['GANG-CYCLE-003'].title}" in text, text[:1500]
        assert f"GANG-CYCLE-003 on {other}" in text and "Attachments 1" in text, text[:3000]
    browser.screenshot(_url((reports["dir"] / "html" / links[0]).resolve()).replace("%23", "#"),
                       SCREENSHOTS / "allure-result.png", height=1000)


def test_the_bundle_of_the_runs_verifies(reports):
    made = subprocess.run([sys.executable, "-m", "fixtures.report", "bundle", f"--reports-dir={reports['dir']}"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    lines = made.stdout.strip().splitlines()
    assert re.fullmatch(r"gangconf: \S+/gangconf-results-v1\.37\.\d+-\d{4}-\d\d-\d\d\.tar\.gz \(\d+\.\d MB\)", lines[0]), lines
    assert lines[1].startswith("gangconf: verified gangconf-results-") and lines[1].endswith(
        "2 runs on v1.37.2, kube-scheduler, reference: 2 passed, 0 failed, 0 not applicable "
        f"(python -m fixtures.report verify {lines[0].split()[1]})"), lines
