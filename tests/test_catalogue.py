"""The catalogue against the suites, through ``pytest suites --list-checks`` (no cluster is started)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import deviations
from fixtures.catalogue import CATALOGUE, PROFILES

REPO = Path(__file__).resolve().parent.parent

#: Behaviours whose checks are being written right now (other branches). TEMPORARY: remove each ID
#: when its check or its NOT_OBSERVABLE reason lands; the list must end empty.
#: test_pending_ids_are_not_stale fails for an ID that is listed here but already covered.
PENDING_IDS: frozenset[str] = frozenset()


def list_checks(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "suites", "--list-checks", "-p", "no:cacheprovider", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def listed() -> dict:
    proc = list_checks("--list-format=json")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_every_catalogue_id_is_checked_or_not_observable(listed):
    uncovered = {b for b, e in listed.items() if e["in_catalogue"] and not e["tests"] and not e["not_observable"]}
    assert uncovered - PENDING_IDS == set(), "catalogue behaviours without a check or a NOT_OBSERVABLE reason"


def test_pending_ids_are_not_stale(listed):
    covered = {b for b, e in listed.items() if e["tests"] or e["not_observable"]}
    assert PENDING_IDS & covered == set(), "covered now: remove these from PENDING_IDS"
    assert PENDING_IDS <= set(CATALOGUE), PENDING_IDS - set(CATALOGUE)


def test_every_conformance_marker_names_a_catalogue_id(listed):
    strays = {b: [t["test"] for t in e["tests"]] for b, e in listed.items() if not e["in_catalogue"] and e["tests"]}
    assert strays == {}, "checks whose behaviour ID is not in fixtures/catalogue.py"


def test_every_not_observable_reason_names_a_catalogue_id(listed):
    strays = {b: e["not_observable"]["module"] for b, e in listed.items()
              if not e["in_catalogue"] and e["not_observable"]}
    assert strays == {}, "NOT_OBSERVABLE entries whose behaviour ID is not in fixtures/catalogue.py"


def test_catalogue_entries_are_well_formed():
    for behaviour in CATALOGUE.values():
        assert re.fullmatch(r"GANG-[A-Z]+-\d{2,3}", behaviour.id), behaviour.id
        assert behaviour.profile in PROFILES, behaviour
        assert behaviour.title and "\n" not in behaviour.title and len(behaviour.title) <= 110, behaviour
    validation = sorted(b for b in CATALOGUE if b.startswith("GANG-VALIDATION-"))
    assert validation == [f"GANG-VALIDATION-{n:02d}" for n in range(1, 23)]


def test_listing_table_names_every_catalogue_id_and_starts_nothing():
    proc = list_checks("-n", "2")  # xdist must not take over: the listing collects here and runs nothing
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    for behaviour in CATALOGUE:
        assert re.search(rf"^{re.escape(behaviour)}\s", out, re.M), behaviour
    assert "    suites/test_quorum.py::test_gang_stays_pending_when_fewer_than_min_count_members_exist" in out
    assert re.search(r"^GANG-QUEUE-002 .*\n    NOT_OBSERVABLE \[suites/test_queue.py\]: ", out, re.M)
    assert re.search(r"^\d+ behaviours: \d+ checked, \d+ not observable, \d+ without a check$", out, re.M)
    assert "control plane" not in out and "preflight" not in out and "workers" not in out, out[-2000:]
    assert re.search(r"\d+ tests? collected", out), out[-500:]


def test_listing_profiles_are_the_profiles_with_checks():
    proc = list_checks("--list-format=profiles")
    assert proc.returncode == 0, proc.stderr
    profiles = proc.stdout.split()
    assert "beta" in profiles and set(profiles) <= set(PROFILES)
    assert profiles == [p for p in PROFILES if p in profiles]  # in profile order, nothing else on stdout


def test_only_profile_selects_that_profiles_checks():
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "--only-profile=alpha", "-n", "2"], cwd=REPO, capture_output=True, text=True, timeout=120)
    # No alpha check yet selects nothing (exit 5); either way no beta check or demonstration is collected.
    assert proc.returncode in (0, 5), proc.stdout[-2000:]
    assert "test_quorum.py" not in proc.stdout and "test_plain_pods" not in proc.stdout, proc.stdout[-2000:]
    assert "control plane" not in proc.stdout


def test_the_readme_lists_the_deviation_checks_of_the_suites():
    """The README's table of known deviations is the suites' (regenerate: ``pytest suites --list-checks
    --list-format=deviations``)."""
    proc = list_checks("--list-format=deviations")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    block = proc.stdout.strip()
    assert block.startswith(deviations.README_BEGIN) and block.endswith(deviations.README_END), block
    assert block in (REPO / "README.md").read_text(), \
        "README.md's deviations differ from the suites' markers: paste the output of " \
        "`pytest suites --list-checks --list-format=deviations`"
