"""The timeline picture, drawn from recorded timelines: what a person reads in it is what happened.

Two recordings of v1.37.2 (``tests/data/timelines/``, objects cut down to the fields the picture
reads): the partial-placement deadlock of plain pods (``suites/test_deadlock.py``'s
demonstration: twelve GPUs, two jobs of eight, six and six bound) and the Permit barrier of the
fault profile (GANG-PERMIT-001: two members nominated and held at Permit while the third fails
Reserve). The rest are hand-written timelines of one behaviour each.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fixtures import timeline_svg
from fixtures.timeline import Observation, Timeline, Wait
from fixtures.timeline_svg import GROUP_COLOURS, POD_COLOURS, WAIT_COLOURS, pod_state, render

DATA = Path(__file__).parent / "data" / "timelines"
SVG = "{http://www.w3.org/2000/svg}"


def _recorded(name: str) -> tuple[list[dict], list[dict]]:
    records = [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]
    return records, json.loads((DATA / f"{name}.waits.json").read_text())


def _tips(svg: str, colour: str) -> list[str]:
    """The tooltips of the bars drawn in ``colour``."""
    root = ET.fromstring(svg)
    return [rect.find(f"{SVG}title").text for rect in root.iter(f"{SVG}rect")
            if rect.get("fill") == colour and rect.find(f"{SVG}title") is not None]


def _marks(svg: str, cls: str) -> list[str]:
    """The tooltips of the marks of one class (``fail``, ``pre``) in the lanes."""
    return [p.find(f"{SVG}title").text for p in ET.fromstring(svg).iter(f"{SVG}path")
            if p.get("class") == cls and p.find(f"{SVG}title") is not None]


def _texts(svg: str) -> list[str]:
    """The words written in the picture (without the tooltips)."""
    words = []
    for text in ET.fromstring(svg).iter(f"{SVG}text"):
        tip = text.find(f"{SVG}title")
        words.append((tip.tail if tip is not None else text.text) or "")
    return words


def _pods_in(tips: list[str]) -> set[str]:
    return {tip.split(":", 1)[0] for tip in tips}


def _span(tip: str) -> tuple[float, float]:
    start, end = re.search(r"\(([\d.]+) s to ([\d.]+) s\)$", tip).groups()
    return float(start), float(end)


def test_the_deadlock_reads_six_and_six_at_a_glance():
    records, waits = _recorded("deadlock-plain-pods")
    svg = render(records, waits, title="deadlock")
    texts = _texts(svg)
    assert "job-a: at most 6 of 8 bound at once; job-b: at most 6 of 8 bound at once" in texts
    assert "job-a (8 pods)" in texts and "job-b (8 pods)" in texts
    bound = _pods_in(_tips(svg, POD_COLOURS["bound"]))
    stuck = _pods_in(_tips(svg, POD_COLOURS["unschedulable"]))
    for job in ("job-a", "job-b"):
        assert len({p for p in bound if p.startswith(job)}) == 6
        assert len({p for p in stuck if p.startswith(job)}) == 2
    assert not bound & stuck  # no worker was ever both: the standoff held for the whole recording
    # Each worker that never got a GPU carries FailedScheduling marks.
    assert _pods_in(_marks(svg, "fail")) == stuck


def test_the_checks_windows_are_shaded_over_their_recorded_spans():
    records, waits = _recorded("deadlock-plain-pods")
    svg = render(records, waits)
    never = [tip for tip in _tips(svg, WAIT_COLOURS["never"]) if tip.startswith("never: ")]
    assert len(never) == 1 and "neither job ever gets all 8 workers" in never[0] and never[0].endswith("held)")
    recorded = next(w for w in waits if w["kind"] == "never")
    assert f"({recorded['start']:.1f} s to {recorded['end']:.1f} s, held)" in never[0]
    eventually = [tip for tip in _tips(svg, WAIT_COLOURS["eventually"]) if tip.startswith("eventually: ")]
    assert len(eventually) == 1 and "all 12 GPUs taken" in eventually[0]


def test_members_held_at_permit_are_drawn_waiting_nominated_to_their_nodes():
    records, waits = _recorded("permit-barrier-waits")
    svg = render(records, waits)
    waiting = _tips(svg, POD_COLOURS["waiting at Permit"])
    assert _pods_in(waiting) == {"barrier-0", "barrier-2"}
    assert all(", nominated to " in tip for tip in waiting)
    held = {tip.split(":", 1)[0]: _span(tip) for tip in waiting}
    window = next(w for w in waits if w["kind"] == "never")
    for start, end in held.values():  # held at Permit over the whole never window
        assert start <= window["start"] and end >= window["end"]
    assert _pods_in(_tips(svg, POD_COLOURS["unschedulable"])) == {"barrier-1"}
    assert "PodGroup barrier (minCount 3)" in _texts(svg)
    conditions = _tips(svg, GROUP_COLOURS["False"])
    assert conditions and conditions[0].startswith("PodGroup barrier: PodGroupInitiallyScheduled=False Unschedulable")


@pytest.mark.parametrize(("pod", "state"), [
    ({}, "pending"),
    ({"spec": {"schedulingGates": [{"name": "g"}]}}, "gated"),
    ({"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}}, "gated"),
    ({"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}},
     "unschedulable"),
    ({"status": {"nominatedNodeName": "n1", "conditions": [{"type": "PodScheduled", "status": "False"}]}},
     "nominated"),
    ({"status": {"nominatedNodeName": "n1"}}, "waiting at Permit"),
    ({"spec": {"nodeName": "n1"}}, "bound"),
    ({"metadata": {"deletionTimestamp": "2026-12-04T00:00:00Z"}, "spec": {"nodeName": "n1"}}, "terminating"),
])
def test_what_a_pod_object_says_it_is(pod, state):
    assert pod_state({"metadata": {"name": "p"}, **pod}) == state


def _pod(name: str, **fields) -> dict:
    return {"metadata": {"name": name, **fields.pop("metadata", {})}, "spec": fields.pop("spec", {}),
            "status": fields.pop("status", {})}


def _record(t: float, kind: str, type_: str, obj: dict) -> dict:
    return {"t": t, "kind": kind, "type": type_, "name": obj["metadata"]["name"], "object": obj}


def test_preemption_deletion_and_a_pod_created_again_under_its_name():
    victim = _pod("low-0", spec={"nodeName": "n1"})
    disrupted = _pod("low-0", spec={"nodeName": "n1"}, status={"conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "by urgent"}]})
    records = [
        _record(0.0, "Pod", "ADDED", victim),
        _record(1.0, "Pod", "MODIFIED", disrupted),
        _record(1.1, "Event", "ADDED", {"metadata": {"name": "e1"}, "reason": "Preempted", "message": "Preempted by x",
                                        "involvedObject": {"kind": "Pod", "name": "low-0"}}),
        _record(2.0, "Pod", "DELETED", {"metadata": {"name": "low-0"}}),
        _record(3.0, "Pod", "ADDED", _pod("low-0")),
    ]
    root = ET.fromstring(render(records))
    marks = _marks(render(records), "pre")
    assert any("DisruptionTarget PreemptionByScheduler: by urgent" in m for m in marks)
    deletions = [r.find(f"{SVG}title").text for r in root.iter(f"{SVG}rect") if r.get("class") == "del"]
    assert deletions == ["low-0 deleted at 2.0 s"]
    lanes = [t for t in _texts(render(records)) if t == "low-0"]
    assert len(lanes) == 2  # the pod created again has a lane of its own


def test_a_failed_wait_is_red_and_an_unfinished_one_runs_to_the_end():
    records = [_record(0.0, "Pod", "ADDED", _pod("a")), _record(5.0, "Pod", "MODIFIED", _pod("a", spec={"nodeName": "n"}))]
    waits = [{"kind": "never", "describe": "a is never bound", "start": 1.0, "end": 5.0, "outcome": "violated"},
             {"kind": "eventually", "describe": "b appears", "start": 5.0, "end": None, "outcome": None}]
    svg = render(records, waits)
    assert any(t.startswith("never: a is never bound (1.0 s to 5.0 s, violated)") for t in _tips(svg, WAIT_COLOURS["failed"]))
    assert any(t.startswith("eventually: b appears (5.0 s to 5.0 s") for t in _tips(svg, WAIT_COLOURS["eventually"]))


def test_names_and_messages_are_escaped_and_hundreds_of_pods_are_cut():
    message = "0/3 nodes are available: <3> Insufficient & \"cpu\""
    records = [_record(0.0, "Pod", "ADDED", _pod("p-0", status={"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}]}))]
    records += [_record(0.1, "Pod", "ADDED", _pod(f"p-{i}")) for i in range(1, timeline_svg.MAX_LANES + 40)]
    svg = render(records, title="<a & b>")
    assert "<a & b>" in _texts(svg)
    assert any(message in tip for tip in _tips(svg, POD_COLOURS["unschedulable"]))
    assert "... and 40 more pods, left out of the picture" in _texts(svg)


def test_a_recorder_is_drawn_as_its_recorded_timeline():
    class Recorded:  # what of_recorder reads of a Recorder: its timeline and its waits
        timeline = Timeline()
        waits = [Wait("never", "nothing bound", timeline.started + 0.5, timeline.started + 2.0,
                      timeline.started + 2.0, "held")]

    Recorded.timeline.append(Observation(Recorded.timeline.started + 0.2, "Pod", "ADDED", _pod("x-0")))
    records = timeline_svg.records_of(Recorded.timeline.snapshot(), Recorded.timeline.started)
    waits = timeline_svg.waits_of(Recorded.waits, Recorded.timeline.started)
    assert timeline_svg.of_recorder(Recorded(), title="t") == render(records, waits, title="t")
    assert waits == [{"kind": "never", "describe": "nothing bound", "start": 0.5, "end": 2.0, "outcome": "held"}]


def test_the_command_draws_a_failure_directory(tmp_path: Path, capsys):
    (tmp_path / "timeline.jsonl").write_text((DATA / "permit-barrier-waits.jsonl").read_text())
    (tmp_path / "waits.json").write_text((DATA / "permit-barrier-waits.waits.json").read_text())
    assert timeline_svg.main([str(tmp_path)]) == 0
    assert ET.fromstring((tmp_path / "timeline.svg").read_text()).tag == f"{SVG}svg"
    assert timeline_svg.main([str(tmp_path / "nothing-here")]) == 2
    assert "no timeline.jsonl in" in capsys.readouterr().err
    (tmp_path / "waits.json").write_text("{cut")
    assert timeline_svg.main([str(tmp_path)]) == 2
    assert "waits.json is not what the recorder writes" in capsys.readouterr().err

