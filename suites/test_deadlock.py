"""The partial-placement deadlock, reproduced with plain pods and prevented by gang PodGroups.

Two training jobs of 8 workers each need one GPU per worker; the pool has 12 GPUs, enough for
one job but not for both. Run ``pytest -k deadlock`` to see it.
"""

from __future__ import annotations

import pytest

from fixtures import NodeShape

NODES = 12
WORKERS = 8
JOBS = ("job-a", "job-b")


def _submit_interleaved(gang, *, grouped: bool) -> None:
    """Create the workers of both jobs alternately, as two controllers racing would."""
    for i in range(WORKERS):
        for job in JOBS:
            gang.pod(f"{job}-{i}", group=job if grouped else None, gpus=1, cpu="100m")


@pytest.mark.deadlock
def test_plain_pods_deadlock_when_two_jobs_race_for_gpus(pool, gang, recorder, timeouts, narrate):
    """Demonstration: the deadlock gang scheduling exists to prevent.

    Without PodGroups each worker is scheduled on its own. Two 8-worker jobs that race for 12 GPUs
    both get some workers placed; every GPU is then held and neither job can ever start all 8.

    Scenario:
      1. A pool of 12 nodes with one nvidia.com/gpu each.
      2. Two jobs of 8 workers (1 GPU each), created alternately, no PodGroup.
      3. All 12 GPUs are taken, with each job holding some but not all of its workers.
      4. Over the ``deadlock_window`` nothing changes: neither job reaches 8.

    Passes when the deadlock is reproduced; the output says so.
    """
    pool.add(NODES, NodeShape(cpu="4", gpus=1))
    _submit_interleaved(gang, grouped=False)

    state = recorder.eventually(lambda s: sum(s.bound_count(prefix=f"{j}-") for j in JOBS) == NODES,
                                timeout=timeouts.gang_scheduled,
                                describe="all 12 GPUs taken by workers of the two jobs")
    counts = {j: state.bound_count(prefix=f"{j}-") for j in JOBS}
    assert all(0 < n < WORKERS for n in counts.values()), f"no deadlock formed: {counts}\n{state.summary()}"
    recorder.never(lambda s: any(s.bound_count(prefix=f"{j}-") == WORKERS for j in JOBS),
                   window=timeouts.deadlock_window,
                   describe="neither job ever gets all 8 workers")
    narrate(
        f"reproduced the deadlock: job-a holds {counts['job-a']}/8 GPUs and job-b holds {counts['job-b']}/8; "
        f"all {NODES} GPUs are taken and neither job could start in {timeouts.deadlock_window:.0f}s"
    )


@pytest.mark.deadlock
@pytest.mark.conformance(id="GANG-CYCLE-003", profile="beta")
def test_gang_podgroups_prevent_the_deadlock(pool, gang, recorder, timeouts, narrate):
    """Behaviour: GANG-CYCLE-003 (all-or-nothing under competition), profile beta.

    Requirement: with a gang PodGroup (minCount 8) per job, exactly one job MUST be placed whole and
    the other MUST have no worker bound at any time while it cannot fit; once the first job is
    deleted, the second MUST be placed whole.

    Scenario:
      1. A pool of 12 nodes with one nvidia.com/gpu each.
      2. Gang PodGroups job-a and job-b with minCount 8; their workers created alternately.
      3. One job has 8 workers bound; over the whole recording, including the
         ``deadlock_window``, the other never has a worker bound.
      4. Delete the winner's workers: the other job gets all 8 bound.
      5. Both jobs were bound all or nothing over the whole recording.
    """
    pool.add(NODES, NodeShape(cpu="4", gpus=1))
    for job in JOBS:
        gang.pod_group(job, min_count=WORKERS)
    _submit_interleaved(gang, grouped=True)

    state = recorder.eventually(lambda s: any(s.bound_count(prefix=f"{j}-") == WORKERS for j in JOBS),
                                timeout=timeouts.gang_scheduled, describe="one job has all 8 workers bound")
    winner = next(j for j in JOBS if state.bound_count(prefix=f"{j}-") == WORKERS)
    loser = next(j for j in JOBS if j != winner)
    recorder.never(lambda s: s.bound_count(prefix=f"{loser}-") > 0, window=timeouts.deadlock_window,
                   describe=f"{loser}, which cannot fit beside {winner}, never has a worker bound")
    narrate(f"no deadlock: {winner} runs with 8/8 workers, {loser} waits with 0/8 bound and its GPUs free")

    gang.delete_pods([f"{winner}-{i}" for i in range(WORKERS)])
    recorder.eventually(lambda s: s.bound_count(prefix=f"{loser}-") == WORKERS, timeout=timeouts.gang_scheduled,
                        describe=f"{loser} has all 8 workers bound after {winner} is gone")
    recorder.assert_all_or_nothing(burst=timeouts.binding_burst)
    narrate(f"after {winner} finished, {loser} was placed whole (8/8)")
