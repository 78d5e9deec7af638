"""Gangs competing for one pool: all-or-nothing under competition, ordering, plain pods beside gangs.

Every gang here is sized in GPUs (one per member, an extended resource), so whether a gang fits
is plain arithmetic, and no gang may preempt another: they have the same priority, or a
``preemptionPolicy: Never`` class where priorities differ.

Two invariants hold over the whole recording of each test: a gang that waits never has a member
bound, and every gang is bound all or nothing. Binding is one API call per member
(GANG-CYCLE-006), so a gang being placed passes through partly bound states for a moment; what
counts as a partial binding is defined once, in :mod:`fixtures.allornothing`.
"""

from __future__ import annotations

import datetime
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from fixtures import NodeShape

CPU = "100m"
#: Seconds: two retries this close together were taken back from backoff in the same whole-second
#: window (retries of different windows are at least a second apart). Not a deadline.
SAME_WINDOW = 0.5


def _one_runs_whole_the_other_binds_nothing(recorder, timeouts, groups: dict[str, int]) -> tuple[str, str]:
    """Of two gangs of 4 that cannot both fit: one gets all 4 bound, the other none over the
    ``stays_pending`` window, and both are all or nothing. Returns (winner, loser)."""
    state = recorder.eventually(lambda s: any(s.bound_count(g) == 4 for g in groups), timeout=timeouts.gang_scheduled,
                                describe="one gang with all 4 members bound")
    winner = next(g for g in groups if state.bound_count(g) == 4)
    loser = next(g for g in groups if g != winner)
    recorder.never(lambda s: s.bound_count(loser) > 0, window=timeouts.stays_pending,
                   describe=f"{loser}, which cannot fit beside {winner}, never has a member bound")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)
    return winner, loser


@pytest.mark.conformance(id="GANG-COMPETE-001", profile="beta")
def test_one_of_two_gangs_runs_whole_when_each_needs_more_than_half_the_pool(pool, gang, recorder, timeouts):
    """Behaviour: GANG-COMPETE-001, profile beta.

    Requirement: of two gangs that each need more than half of the pool, the scheduler MUST run
    exactly one whole and leave the other waiting with no member bound; no partial binding of
    either may ever be observed; once the running gang is gone, the waiting one MUST be placed
    whole.

    Scenario:
      1. A pool of 3 nodes with 2 GPUs each (6 GPUs).
      2. Gang ``blue`` (minCount 4, 4 members of 1 GPU), then gang ``green`` (the same).
      3. One gang has 4 members bound; over the ``stays_pending`` window the other never has one.
      4. Delete the running gang's members: the other gang gets all 4 bound.
      5. Both gangs are all or nothing over the whole recording.
    """
    pool.add(3, NodeShape(cpu="4", gpus=2))
    members = {g: gang.gang(g, 4, gpus=1, cpu=CPU) for g in ("blue", "green")}
    groups = {g: 4 for g in members}

    winner, loser = _one_runs_whole_the_other_binds_nothing(recorder, timeouts, groups)

    gang.delete_pods(members[winner])
    recorder.eventually(lambda s: s.bound_count(loser) == 4, timeout=timeouts.gang_scheduled,
                        describe=f"{loser} placed whole once {winner} is gone")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)


@pytest.mark.conformance(id="GANG-COMPETE-002", profile="beta")
@pytest.mark.parametrize("podgroups", ["first", "last"])
def test_interleaved_members_of_two_gangs_never_bind_partially(pool, gang, recorder, timeouts, podgroups):
    """Behaviour: GANG-COMPETE-002, profile beta.

    Requirement: when the members of two gangs are created interleaved (two controllers racing),
    whether their PodGroups exist before the members or appear after them (releasing both gangs
    at once), the scheduler MUST run exactly one gang whole and bind nothing of the other, and no
    partial binding may ever be observed.

    Scenario:
      1. A pool of 3 nodes with 2 GPUs each (6 GPUs).
      2. The 4 members of gangs ``red`` and ``white`` (1 GPU each) are created alternately; the two
         PodGroups (minCount 4) are created before the members, or after all of them.
      3. One gang has 4 members bound; over the ``stays_pending`` window the other never has one.
      4. Both gangs are all or nothing over the whole recording.
    """
    pool.add(3, NodeShape(cpu="4", gpus=2))
    groups = {"red": 4, "white": 4}
    if podgroups == "first":
        for g in groups:
            gang.pod_group(g, min_count=4)
    for i in range(4):
        for g in groups:
            gang.pod(f"{g}-{i}", group=g, gpus=1, cpu=CPU)
    if podgroups == "last":
        recorder.eventually(lambda s: len(s.pods) == 8, timeout=timeouts.observe, describe="the 8 members recorded")
        for g in groups:
            gang.pod_group(g, min_count=4)

    _one_runs_whole_the_other_binds_nothing(recorder, timeouts, groups)


def _attempt_times(state, pod: str) -> list[datetime.datetime]:
    """When pod ``pod`` was tried and found unschedulable, as far as its FailedScheduling events show.

    Each event gives the time of its first occurrence (``eventTime``, else ``firstTimestamp``),
    and a series (kube-scheduler writes a repeat of the same event as one) the time of its latest
    one; that is enough to see the first two attempts.
    """
    times = []
    for event in state.events_for(pod, "FailedScheduling"):
        first = event.get("eventTime") or event.get("firstTimestamp")
        if first:
            times.append(first)
        latest = (event.get("series") or {}).get("lastObservedTime")
        if latest:
            times.append(latest)
    return sorted(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")) for t in times)


@pytest.mark.conformance(id="GANG-COMPETE-003", profile="beta")
def test_higher_priority_gang_wins_when_both_come_back_from_backoff_together(pool, gang, recorder, timeouts, cluster,
                                                                           scheduler_settings):
    """Behaviour: GANG-COMPETE-003, profile beta.

    Requirement: of two gangs that are queued together and can only run one at a time, the
    scheduler MUST try the higher-priority one first, so that it runs whole and the other waits
    with nothing bound, even when the lower-priority one was queued first.

    How they are queued together, deterministically, on v1.37.2: a gang that fails goes to
    backoff, and backoff ends on whole seconds (expiries are cut down to one-second windows, and
    the queue takes back every entity of a window at once, then orders them by priority). Two
    gangs that fail within the same second come back at the same second from then on. So both
    gangs are released (quorum reached) while nothing fits, the low-priority one first; once both
    were seen failing twice in the same second, the room for one gang is freed, and at their next
    common retry the high-priority gang must be the one placed. If their second attempts were not
    in the same second (the two releases straddled a second), the check tries again with fresh
    gangs. Neither gang may preempt (classes with ``preemptionPolicy: Never``), so the outcome is
    the queue's order alone.

    The check needs backoff: it reads the scheduler's ``podMaxBackoffSeconds``
    (:mod:`fixtures.schedconfig`; v1.37.2's default, 10 s, where the configuration cannot be read)
    and is not applicable where it is 0. Its waits for retries cover the configured backoff
    (:meth:`fixtures.timeouts.Timeouts.after_backoff`).

    Scenario:
      1. PriorityClasses low (100) and high (1000), both ``preemptionPolicy: Never``; a pool of 1
         node with 4 GPUs, all taken by 4 pods without a PodGroup (priority 0).
      2. Gangs ``low-<n>`` and ``high-<n>`` (minCount 4), each with 3 members of 1 GPU (below quorum).
      3. Create the 4th member of ``low-<n>``, then of ``high-<n>``: both are tried and fail.
      4. Wait for each gang's second attempt; if the two were more than half a second apart, delete
         both gangs and go back to step 2 (at most 3 times).
      5. Delete the 4 pods that take the GPUs.
      6. ``high-<n>`` gets all 4 members bound; over the ``stays_pending`` window ``low-<n>`` never
         has a member bound; every gang is all or nothing.
    """
    if not scheduler_settings.max_backoff:
        pytest.skip(f"not applicable: the scheduler has no backoff ({scheduler_settings.describe()}), and the check "
                    f"queues the two gangs together through their backoff windows")
    low = gang.priority_class("low", 100, preemption_policy="Never")
    high = gang.priority_class("high", 1000, preemption_policy="Never")
    pool.add(1, NodeShape(cpu="8", gpus=4))
    blockers = gang.pods("busy", 4, gpus=1, cpu=CPU)
    recorder.eventually(lambda s: len(s.bound(prefix="busy-")) == 4, timeout=timeouts.gang_scheduled,
                        describe="the 4 GPUs taken")

    # With PodGroupPreemptionPolicy on (a profile may run the beta checks with it), a PodGroup of a
    # Never class must say so itself, as its members must agree with it.
    policy = "Never" if cluster.profile.gate("PodGroupPreemptionPolicy") else None
    seen = []
    for round_ in range(3):
        lo, hi = f"low-{round_}", f"high-{round_}"
        for g, cls in ((lo, low), (hi, high)):
            gang.pod_group(g, min_count=4, priority_class=cls, preemption_policy=policy)
            gang.pods(g, 3, group=g, gpus=1, cpu=CPU, priority_class=cls)
        gang.pod(f"{lo}-3", group=lo, gpus=1, cpu=CPU, priority_class=low)
        gang.pod(f"{hi}-3", group=hi, gpus=1, cpu=CPU, priority_class=high)
        state = recorder.eventually(
            lambda s: len(_attempt_times(s, f"{lo}-0")) >= 2 and len(_attempt_times(s, f"{hi}-0")) >= 2,
            timeout=timeouts.scheduler_reacts, describe=f"{lo} and {hi} each tried twice")
        second = {g: _attempt_times(state, f"{g}-0")[1] for g in (lo, hi)}
        seen.append(second)
        if abs((second[lo] - second[hi]).total_seconds()) < SAME_WINDOW:
            break
        for g in (lo, hi):  # released in different seconds: they never come back together
            gang.delete_pods([f"{g}-{i}" for i in range(4)])
            gang.delete_pod_group(g)
            gang.drop_finalizers(g)
        recorder.eventually(lambda s: not s.members(lo) and not s.members(hi), timeout=timeouts.cleanup,
                            describe=f"{lo} and {hi} gone")
    else:
        raise AssertionError(f"the two gangs were never tried in the same second in 3 rounds: {seen}")

    gang.delete_pods(blockers)
    recorder.eventually(lambda s: s.bound_count(hi) == 4, timeout=timeouts.gang_scheduled,
                        describe=f"{hi}, the higher-priority gang, placed whole")
    recorder.never(lambda s: s.bound_count(lo) > 0, window=timeouts.stays_pending,
                   describe=f"{lo}, of lower priority, never has a member bound")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)


@pytest.mark.conformance(id="GANG-COMPETE-004", profile="beta")
def test_plain_pods_are_bound_beside_a_waiting_gang_that_stays_all_or_nothing(pool, gang, recorder, timeouts):
    """Behaviour: GANG-COMPETE-004, profile beta.

    Requirement: a gang that cannot fit MUST NOT starve pods without a PodGroup, nor another gang
    that fits: they MUST be bound while it waits, and the waiting gang MUST stay all-or-nothing
    (no member bound) throughout; a gang that fits MUST run whole beside plain pods.

    Scenario:
      1. A pool of 3 nodes with 2 GPUs each (6 GPUs).
      2. Gang ``wide`` (minCount 8): its 8 members (1 GPU each) are created alternately with 3
         plain pods ``plain-<i>`` (1 GPU each): the gang cannot ever fit.
      3. The 3 plain pods are bound.
      4. Gang ``pair`` (minCount 2, 2 members of 1 GPU): both bound.
      5. One more plain pod ``plain-late``: bound (the last free GPU).
      6. Over the whole recording, including the ``stays_pending`` window, ``wide`` never has a
         member bound; ``pair`` is all or nothing.
    """
    pool.add(3, NodeShape(cpu="4", gpus=2))
    gang.pod_group("wide", min_count=8)
    plain = []
    for i in range(8):
        gang.pod(f"wide-{i}", group="wide", gpus=1, cpu=CPU)
        if i % 3 == 1:
            plain.append(gang.pod(f"plain-{len(plain)}", gpus=1, cpu=CPU)["metadata"]["name"])
    state = recorder.eventually(lambda s: len(s.bound(prefix="plain-")) == 3, timeout=timeouts.gang_scheduled,
                                describe="the 3 plain pods bound beside the waiting gang")
    assert sorted(p["metadata"]["name"] for p in state.bound(prefix="plain-")) == plain, state.summary()

    gang.gang("pair", 2, gpus=1, cpu=CPU)
    recorder.eventually(lambda s: s.bound_count("pair") == 2, timeout=timeouts.gang_scheduled,
                        describe="gang pair, which fits, bound whole beside the waiting gang")
    gang.pod("plain-late", gpus=1, cpu=CPU)
    recorder.eventually(lambda s: s.bound(prefix="plain-late"), timeout=timeouts.gang_scheduled,
                        describe="a later plain pod bound on the last free GPU")
    recorder.never(lambda s: s.bound_count("wide") > 0, window=timeouts.stays_pending,
                   describe="the gang that cannot fit never has a member bound")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)


@pytest.mark.conformance(id="GANG-COMPETE-005", profile="beta")
def test_gangs_created_concurrently_are_each_all_or_nothing_and_every_one_that_fits_is_placed(
        pool, gang, recorder, timeouts):
    """Behaviour: GANG-COMPETE-005, profile beta.

    Requirement: gangs created at the same time by concurrent clients MUST each be placed whole or
    not at all, and the scheduler MUST place every gang that fits: once it settles, no waiting gang
    fits into the free capacity; when a placed gang goes away, waiting gangs that now fit MUST be
    placed.

    Scenario:
      1. A pool of 4 nodes with 2 GPUs each (8 GPUs); a gang fits wherever the pool has as many free
         GPUs as it has members.
      2. Six threads, started together, each create one gang (its PodGroup with minCount = size,
         then its members of 1 GPU): sizes 3, 3, 3, 2, 2 and 1 (14 GPUs in all).
      3. The scheduler settles: every gang is fully bound or has nothing bound, and every gang with
         nothing bound is larger than the number of free GPUs.
      4. Delete the members of one placed gang of 3: it settles again the same way, with at least
         one more gang placed.
      5. Over the whole recording, including a ``stays_pending`` window after each settling, no
         gang is ever partly bound beyond its binding burst.
    """
    total = 8
    pool.add(4, NodeShape(cpu="4", gpus=2))
    sizes = {"g0": 3, "g1": 3, "g2": 3, "g3": 2, "g4": 2, "g5": 1}
    start = threading.Barrier(len(sizes))

    def create(name: str) -> list[str]:
        start.wait(timeout=timeouts.observe)
        return gang.gang(name, sizes[name], gpus=1, cpu=CPU)

    with ThreadPoolExecutor(max_workers=len(sizes)) as workers:
        members = dict(zip(sizes, workers.map(create, sizes)))

    def settled(s) -> bool:
        counts = {g: s.bound_count(g) for g in sizes}
        if any(c not in (0, sizes[g]) for g, c in counts.items()):
            return False
        free = total - sum(counts.values())
        return all(sizes[g] > free for g, c in counts.items() if c == 0)

    state = recorder.eventually(settled, timeout=timeouts.gang_scheduled,
                                describe="every gang whole or empty, and no empty gang fits the free GPUs")
    placed = [g for g in sizes if state.bound_count(g) == sizes[g]]
    recorder.never(lambda s: any(s.bound_count(g) != (sizes[g] if g in placed else 0) for g in sizes),
                   window=timeouts.stays_pending, after=recorder.mark(),
                   describe=f"the settled placement ({', '.join(placed)}) stays as it is")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)

    gone = next(g for g in placed if sizes[g] == 3) if any(sizes[g] == 3 for g in placed) else placed[0]
    since = recorder.mark()
    gang.delete_pods(members[gone])
    sizes_left = {g: n for g, n in sizes.items() if g != gone}

    def settled_again(s) -> bool:
        counts = {g: s.bound_count(g) for g in sizes_left}
        if any(c not in (0, sizes_left[g]) for g, c in counts.items()) or s.bound(gone):
            return False
        free = total - sum(counts.values())
        return all(sizes_left[g] > free for g, c in counts.items() if c == 0)

    state = recorder.eventually(settled_again, timeout=timeouts.gang_scheduled, after=since,
                                describe=f"with {gone} gone, every gang that fits placed whole")
    now_placed = [g for g in sizes_left if state.bound_count(g) == sizes_left[g]]
    assert set(now_placed) > set(placed) - {gone}, (placed, now_placed, state.summary())
    recorder.never(lambda s: any(s.bound_count(g) != (sizes_left[g] if g in now_placed else 0) for g in sizes_left),
                   window=timeouts.stays_pending, after=recorder.mark(),
                   describe=f"the settled placement ({', '.join(now_placed)}) stays as it is")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)
