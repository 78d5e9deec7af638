"""The upstream traceability table (fixtures/upstream.yaml) stays true to the suites and the plan.

The suites are collected with ``--list-checks`` (nothing is started), so a check that is renamed,
moved to another behaviour ID or deleted fails here by name.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fixtures import upstream
from fixtures.errors import HarnessError

#: Rows that have no check at all today. Deliverable 2 of issue 15 brings it down; it must never grow.
MOST_ROWS_WITHOUT_A_CHECK = 57


@pytest.fixture(scope="module")
def rows():
    return upstream.load()


@pytest.fixture(scope="module")
def checks():
    return upstream.declared_checks()


def test_every_named_check_exists_and_every_row_has_a_check_a_plan_or_a_reason(rows, checks):
    found = upstream.problems(rows, checks, upstream.planned_ids())
    assert not found, "\n".join(found)


def test_the_table_has_rows_of_every_kind(rows):
    c = upstream.counts(rows)
    assert c["rows"] == len(rows) > 100
    assert all(c[s] > 0 for s in upstream.STATUSES), c


def test_rows_without_a_check_never_grow(rows):
    assert upstream.counts(rows)["none"] <= MOST_ROWS_WITHOUT_A_CHECK, (
        "a new upstream scenario without a check: write the check, or lower nothing and say why in the row")


def _row(**fields):
    base = dict(id="U900", file="f.go", test="TestX", behaviour="b", status="covered",
                checks=("GANG-QUORUM-001 test_a",))
    return upstream.Row(**{**base, **fields})


CHECKS = {"GANG-QUORUM-001": {"test_a"}}


@pytest.mark.parametrize("row, complaint", [
    (_row(checks=("GANG-QUORUM-001 test_gone",)), "GANG-QUORUM-001 has no test test_gone"),
    (_row(checks=("GANG-NOPE-001 test_a",)), "no check declares behaviour GANG-NOPE-001"),
    (_row(checks=("suites/test_quorum.py::test_a",)), "is not 'GANG-... test_function'"),
    (_row(status="none", checks=()), "names the proposed check"),
    (_row(status="none", checks=(), gap="GANG-NEW-009"), "is not proposed in docs/upstream-gaps.md"),
    (_row(status="partial"), "says what is missing"),
    (_row(status="not-observable", checks=()), "needs a reason"),
    (_row(checks=()), "needs checks"),
    (_row(status="maybe"), "is not one of"),
], ids=["renamed-check", "unknown-behaviour", "path-not-name", "none-without-gap", "gap-not-planned",
        "partial-without-missing", "not-observable-without-reason", "covered-without-check", "bad-status"])
def test_a_broken_row_is_named_with_what_is_wrong(row, complaint):
    found = upstream.problems([row], CHECKS, planned={"GANG-NEW-001"})
    assert any(complaint in line and line.startswith("U900") for line in found), found


def test_a_sound_row_has_no_problem():
    assert upstream.problems([_row(), _row(id="U901", status="none", checks=(), gap="GANG-NEW-001")],
                             CHECKS, planned={"GANG-NEW-001"}) == []


def test_a_row_with_an_unknown_field_is_refused_in_one_line(tmp_path):
    table = tmp_path / "upstream.yaml"
    table.write_text("rows:\n- {id: U001, file: f, test: t, behaviour: b, status: covered, colour: red}\n")
    with pytest.raises(HarnessError, match="row 1 needs") as info:
        upstream.load(table)
    assert "\n" not in str(info.value)


def test_the_plan_proposes_the_ids_of_its_section_headings(tmp_path):
    plan = tmp_path / "plan.md"
    plan.write_text("# Plan\n\n### GANG-DRA-001: claims\ntext GANG-DRA-009 in prose\n### GANG-CPG-PREEMPT-002 trees\n")
    assert upstream.planned_ids(plan) == {"GANG-DRA-001", "GANG-CPG-PREEMPT-002"}


def test_list_checks_names_the_upstream_rows_of_each_behaviour(rows):
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites", "--list-checks", "--list-format=json", "-q",
                           "-p", "no:cacheprovider"], cwd=upstream.REPO_ROOT, capture_output=True, text=True)
    listed = json.loads(proc.stdout)
    expected = upstream.rows_by_check(rows)
    assert expected and all(listed[b]["upstream"] == ids for b, ids in expected.items()), proc.stdout[-500:]
