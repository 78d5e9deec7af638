"""Deviation checks' pure parts: the verdict, reading a condition's history, the report section, the README table."""

from __future__ import annotations

import pytest

from fixtures import conformance, deviations
from fixtures.catalogue import Behaviour
from fixtures.deviations import Attempt
from fixtures.timeline import Observation
from tests.test_report import check, result

SMALL = {"GANG-A-001": Behaviour("GANG-A-001", "first", "beta", "t")}
DEV = {"id": "DEV-COND-TERMINAL", "contract": "True is terminal.", "source": "pkg/x.go:12",
       "test": "suites/test_deviations.py::test_true_regresses"}


def test_a_reproduced_attempt_counts_and_gives_the_first_excerpt():
    outcome = deviations.verdict([Attempt(cases=4), Attempt(cases=4, reproduced=["g1", "g3"], excerpt=["a"]),
                                  Attempt(cases=4, reproduced=["g0"], excerpt=["b"])])
    assert outcome["verdict"] == "reproduced (2 of 3 attempts; 3 of 12 cases)"
    assert outcome["reproduced"] and outcome["excerpt"] == ["a"]


def test_no_reproduction_says_the_contract_held_and_inconclusive_attempts_count_as_neither():
    outcome = deviations.verdict([Attempt(cases=3), Attempt(cases=0, inconclusive="timed out after 45s")])
    assert outcome["verdict"] == ("not reproduced in 1 attempt (3 cases): the contract held every time; "
                                  "1 inconclusive: timed out after 45s")
    assert not outcome["reproduced"] and outcome["attempts"] == 1 and outcome["inconclusive"] == 1


def _pg(at: float, name: str, *conds: tuple[str, str, str], kind: str = "PodGroup", type_: str = "MODIFIED"):
    return Observation(at, kind, type_, {"metadata": {"name": name}, "status": {"conditions": [
        {"type": "PodGroupInitiallyScheduled", "status": s, "reason": r, "message": m} for s, r, m in conds]}})


def test_condition_history_keeps_only_changes_of_the_named_object():
    observations = [_pg(1.0, "g"), _pg(1.1, "g", ("False", "Unschedulable", "no room")),
                    _pg(1.2, "g", ("False", "Unschedulable", "no room")), _pg(1.3, "other", ("True", "Scheduled", "")),
                    _pg(1.4, "g", ("True", "Scheduled", "")), _pg(1.5, "g", ("False", "Unschedulable", "late")),
                    _pg(1.6, "g", ("True", "Scheduled", ""), kind="Pod")]
    history = deviations.condition_history(observations, "PodGroup", "g", "PodGroupInitiallyScheduled")
    assert [h[1:] for h in history] == [("False", "Unschedulable", "no room"), ("True", "Scheduled", ""),
                                        ("False", "Unschedulable", "late")]
    assert deviations.regression(history) == 2
    pod = [(1.45, "False", "Unschedulable", "0/2 nodes are available")]
    assert deviations.excerpt({"PodGroup g": history, "Pod g-2": pod}, since=1.0) == [
        "+0.100s PodGroup g False/Unschedulable: no room", "+0.400s PodGroup g True/Scheduled",
        "+0.450s Pod g-2 False/Unschedulable: 0/2 nodes are available", "+0.500s PodGroup g False/Unschedulable: late"]


@pytest.mark.parametrize("statuses", [[], ["False"], ["False", "True"], ["True", "True"], ["False", "False", "True"]])
def test_a_history_that_never_leaves_true_is_no_regression(statuses):
    assert deviations.regression([(float(i), s, "", "") for i, s in enumerate(statuses)]) is None


def test_the_command_runs_the_check_alone():
    assert deviations.command("suites/test_deviations.py::test_x[a]") == "pytest suites -m deviation -k test_x"
    assert deviations.command("suites/test_deviations.py::test_y", "alpha") == \
        "pytest suites -m deviation -k test_y --profile=gang-alpha"


def test_a_marker_without_its_contract_is_refused_in_one_line():
    with pytest.raises(pytest.UsageError, match="needs id='DEV-...', contract="):
        deviations.identity(pytest.mark.deviation(id="DEV-X", source="a.go:1").mark, "t")
    with pytest.raises(pytest.UsageError):
        deviations.identity(pytest.mark.deviation(id="GANG-X-001", contract="c", source="a.go:1").mark, "t")


def test_readme_table_names_each_deviation_with_its_command():
    table = deviations.readme_table([DEV])
    assert table.startswith(deviations.README_BEGIN) and table.endswith(deviations.README_END)
    assert ("| DEV-COND-TERMINAL | True is terminal. | `pkg/x.go:12` | "
            "`pytest suites -m deviation -k test_true_regresses` |") in table


def _record(scheduler: str, k: int, n: int = 4) -> dict:
    outcome = deviations.verdict([Attempt(cases=6, reproduced=["g0"] if i < k else [], excerpt=[f"line {i}"])
                                  for i in range(n)])
    return {**DEV, "scheduler": scheduler, "outcome": "run", "seconds": 30.0, "command": deviations.command(DEV["test"]),
            **outcome}


def test_the_merged_report_has_the_deviations_apart_and_the_verdict_does_not_change():
    kube = result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler",
                                           tolerates=["DEV-COND-TERMINAL"])])
    kube["deviations"] = [_record("kube-scheduler", 3)]
    ref = result("reference", [check("GANG-A-001", "test_one", "passed", "reference")])
    ref["deviations"] = [_record("reference", 0)]
    merged = conformance.merge([kube, ref], SMALL)
    assert merged["counts"] == {"passed": 2, "failed": 0, "not applicable": 0}
    entry = merged["deviations"]["DEV-COND-TERMINAL"]
    assert entry["contract"] == "True is terminal." and entry["command"].endswith("-k test_true_regresses")
    assert entry["outcomes"]["kube-scheduler"]["verdict"] == "reproduced (3 of 4 attempts; 3 of 24 cases)"
    assert entry["outcomes"]["kube-scheduler"]["excerpt"] == ["line 0"]
    assert entry["outcomes"]["reference"]["verdict"].startswith("not reproduced in 4 attempts")
    assert merged["behaviours"]["GANG-A-001"]["outcomes"]["kube-scheduler"]["reason"] == "tolerates DEV-COND-TERMINAL"
    md = conformance.render_markdown(merged)
    section = md[md.index("## Deviations from the API contract"):md.index("## Checks")]
    assert section.index("### kube-scheduler") < section.index("**reproduced (3 of 4") < section.index("### reference")
    assert "  line 0" in section and "pytest suites -m deviation -k test_true_regresses" in section
    assert "True is terminal." in section and "the contract held every time" in section
    assert "passed: tolerates DEV-COND-TERMINAL" in md


def test_runs_of_the_same_check_add_up_and_a_run_that_could_not_run_says_so():
    combined = deviations.combine([_record("kube-scheduler", 1), _record("kube-scheduler", 0, n=2)])
    assert combined["verdict"] == "reproduced (1 of 6 attempts; 1 of 36 cases)"
    broken = deviations.combine([{**DEV, "outcome": "failed", "reason": "setup: no cluster"}])
    assert broken["verdict"] == "could not run: setup: no cluster" and not broken["reproduced"]


def test_a_report_without_deviations_has_no_section():
    merged = conformance.merge([result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler")])],
                               SMALL)
    assert merged["deviations"] == {}
    assert "Deviations from the API contract" not in conformance.render_markdown(merged)


def test_the_html_page_shows_the_deviations_side_by_side_and_allure_links_a_deviation_check_across_schedulers():
    from fixtures import allure_report, html_report

    kube = result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler")])
    kube["deviations"] = [_record("kube-scheduler", 2)]
    ref = result("reference", [check("GANG-A-001", "test_one", "passed", "reference")])
    ref["deviations"] = [_record("reference", 0)]
    page = html_report.render(conformance.merge([kube, ref], SMALL))
    section = page[page.index('<h2 id="deviations">'):]
    assert "DEV-COND-TERMINAL" in section and "True is terminal." in section
    assert "reproduced (2 of 4 attempts" in section and "not reproduced in 4 attempts" in section
    assert "<pre>line 0</pre>" in section

    def allure_result(uuid: str, scheduler: str) -> dict:
        return {"uuid": uuid, "start": 1, "parameters": [{"name": "scheduler", "value": scheduler}],
                "labels": [{"name": "deviation", "value": "DEV-COND-TERMINAL"},
                           {"name": "gangconf.test", "value": DEV["test"]}]}

    links = allure_report.cross_links({"k": allure_result("uk", "kube-scheduler"), "r": allure_result("ur", "reference")})
    assert [link["name"] for link in links["k"]] == ["DEV-COND-TERMINAL on reference"]
