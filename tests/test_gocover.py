"""make coverage's pieces: the instrumented build's cache key, the provider's switch, the report.

The last test starts a real control plane with the instrumented kube-scheduler and checks that
its counters are written when it stops.
"""

from __future__ import annotations

import json

import pytest

from fixtures import gocover
from fixtures.providers.local import binaries
from fixtures.errors import HarnessError
from fixtures.profiles import Profile
from fixtures.providers.local import COVERDIR_ENV, LocalControlPlane

FILE = "k8s.io/kubernetes/pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go"
PROFILE = f"""mode: set
{FILE}:10.2,12.3 2 1
{FILE}:13.2,15.3 1 0
{FILE}:16.2,17.10 3 0
{FILE}:18.2,19.3 1 1
{FILE}:20.2,22.3 2 0
{FILE}:20.2,22.3 2 0
{FILE}:13.2,15.3 1 1
not a profile line
"""
SOURCE = ["package gangscheduling"] + [""] * 7 + ["func (pl *GangScheduling) Permit() {", "\tok := true"] + \
         ["\t// a comment", "\t{", "\treturn fwk.Queue, err", "\t}"] + ["\tx := 1"] * 10


def test_a_span_counted_by_any_counter_file_ran():
    blocks = gocover.parse_profile(PROFILE)[FILE]
    assert [(b.start, b.count) for b in blocks] == [(10, 1), (13, 1), (16, 0), (18, 1), (20, 0)]
    assert gocover.percent(blocks) == (4, 9, pytest.approx(44.44, abs=0.01))


def test_consecutive_uncovered_blocks_are_one_range_and_a_covered_block_ends_it():
    text = PROFILE.replace(f"{FILE}:18.2,19.3 1 1", f"{FILE}:18.2,19.3 1 0")
    runs = gocover.uncovered_runs(gocover.parse_profile(text)[FILE], SOURCE)
    assert [(r.start, r.end, r.statements) for r in runs] == [(16, 22, 6)]
    assert runs[0].function == "Permit"
    runs = gocover.uncovered_runs(gocover.parse_profile(PROFILE)[FILE], SOURCE)
    assert [(r.start, r.end) for r in runs] == [(16, 17), (20, 22)]


def test_the_first_line_shown_is_code_not_a_brace_or_a_comment():
    (run,) = gocover.uncovered_runs(gocover.parse_profile(f"{FILE}:11.2,14.3 1 0\n")[FILE], SOURCE)
    assert run.first_line == "return fwk.Queue, err"


def test_the_report_lists_each_gang_file_its_target_and_the_uncovered_blocks_of_the_named_files():
    text, data = gocover.report(PROFILE, version="v1.37.2", processes=2, source_root=None)
    row = next(r for r in data["files"] if r["file"].endswith("gangscheduling.go"))
    assert (row["covered"], row["statements"], row["target"]) == (4, 9, 95.0)
    assert next(r for r in data["files"] if r["file"] == "schedule_one_podgroup.go")["missing"]
    assert [u["start"] for u in data["uncovered"]["framework/plugins/gangscheduling/gangscheduling.go"]] == [16, 20]
    assert "| `framework/plugins/gangscheduling/gangscheduling.go` | 9 | 4 | 44.4% (below) | 95% |" in text
    assert "merged over 2 kube-scheduler processes" in text


def test_a_directory_without_counters_is_refused_in_one_line(tmp_path):
    with pytest.raises(HarnessError, match="holds no coverage counters") as info:
        gocover.merge(tmp_path, tmp_path / "profile.txt")
    assert "\n" not in str(info.value)


def test_the_instrumented_build_has_a_cache_directory_of_its_own(monkeypatch, tmp_path):
    monkeypatch.setenv("GANGCONF_CACHE", str(tmp_path))
    tags = binaries.build_tags("v1.37.2")
    assert binaries._kube_dir("v1.37.2", tags, cover=True) == binaries._kube_dir("v1.37.2", tags).with_name(
        binaries._kube_dir("v1.37.2", tags).name + "-cover")
    assert "gangconf.dev/controlplane" in binaries.COVER_PACKAGES  # without the main package no counters are written


def test_kube_scheduler_is_the_normal_build_unless_coverage_is_asked_for(monkeypatch, tmp_path):
    plane = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path)
    monkeypatch.delenv(COVERDIR_ENV, raising=False)
    assert plane._scheduler_binary_and_env() == (plane.binaries.kube_scheduler, None)
    monkeypatch.setenv(COVERDIR_ENV, str(tmp_path / "counters"))
    binary, env = plane._scheduler_binary_and_env()
    assert binary == binaries.build_cover() and binary != plane.binaries.kube_scheduler
    assert env == {"GOCOVERDIR": str(tmp_path / "counters")} and (tmp_path / "counters").is_dir()


def test_the_instrumented_kube_scheduler_writes_its_counters_when_it_stops(monkeypatch, tmp_path):
    counters = tmp_path / "counters"
    monkeypatch.setenv(COVERDIR_ENV, str(counters))
    plane = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run")
    plane.start()
    try:
        assert plane.component("kube-scheduler").argv[0] == str(binaries.build_cover())
    finally:
        plane.stop()
    assert len(list(counters.glob("covcounters.*"))) == 1, sorted(p.name for p in counters.iterdir())
    profile = tmp_path / "coverage.profile.txt"
    assert gocover.merge(counters, profile) == 1
    text, data = gocover.report(profile.read_text(), version="v1.37.2", processes=1, source_root=None)
    scheduler_files = {r["file"] for r in data["files"] if not r.get("missing")}
    assert "framework/plugins/gangscheduling/gangscheduling.go" in scheduler_files, json.dumps(data["files"])
