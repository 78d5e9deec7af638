"""The state files of local clusters: what the next start reaps, what it leaves, how several kept ones are told apart.

The recorded processes are real (``sleep``, each in its own process group, as the components are);
no cluster is started, so the rules can be shown case by case in a cache of the test's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from children import alive, wait_gone
from fixtures.providers import runs
from fixtures.providers.kept import main
from fixtures.processes import process_start_time

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def processes():
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        proc = subprocess.Popen(["sleep", "120"], start_new_session=True)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def record(private_runs: Path, name: str, proc: subprocess.Popen, *, kept: bool) -> Path:
    """A state file as a cluster's owner leaves it, the owner gone (a pid no process has)."""
    secrets = private_runs / f"secrets-{name}"
    secrets.mkdir()
    path = private_runs / "runs" / f"{name}.json"
    runs.write_state(path, secrets=secrets, processes=[{"name": "etcd", "pid": proc.pid, "exe": "sleep"}],
                     kept=runs.Kept(name=name, kubeconfig=str(secrets / "kubeconfig"), kubectl="/bin/true",
                                    version="v1.37.2", profile="gang-beta", logs=str(secrets)) if kept else None)
    state = json.loads(path.read_text())
    state["owner"], state["owner_start"] = 2**22 + 1, "1"  # above pid_max's default: no such process
    path.write_text(json.dumps(state))
    return path


def reaped(proc: subprocess.Popen) -> bool:
    return wait_gone([proc.pid]) == [] and proc.wait(timeout=10) is not None


def test_the_next_start_reaps_a_dead_owners_cluster_and_leaves_a_kept_one(private_runs, processes):
    stale, kept = processes(), processes()
    stale_state = record(private_runs, "stale", stale, kept=False)
    kept_state = record(private_runs, "kept", kept, kept=True)
    assert runs.reap_stale_runs() == [f"etcd (pid {stale.pid})"]
    assert reaped(stale) and not stale_state.exists() and not (private_runs / "secrets-stale").exists()
    assert alive(kept.pid) and kept_state.exists()
    assert [k.name for k in runs.kept_clusters()] == ["kept"]


def test_a_kept_cluster_whose_processes_are_gone_is_forgotten(private_runs, processes):
    gone = processes()
    state = record(private_runs, "gone", gone, kept=True)
    gone.kill()
    gone.wait()
    assert process_start_time(gone.pid) is None
    assert runs.kept_clusters() == [] and not state.exists() and not (private_runs / "secrets-gone").exists()


def test_with_several_kept_clusters_kubectl_and_down_want_a_name(private_runs, processes, capsys):
    first, second = processes(), processes()
    record(private_runs, "first", first, kept=True)
    record(private_runs, "second", second, kept=True)
    for command in (["kubectl", "get", "pods"], ["down"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "2 local clusters are running (first, second): name one" in err, err
    assert main(["down", "nope"]) == 2
    assert "no local cluster named nope is running (running: first, second)" in capsys.readouterr().err
    assert main(["down", "first"]) == 0
    assert "stopped the local cluster first: etcd" in capsys.readouterr().out
    assert reaped(first) and alive(second.pid)
    # One left: kubectl needs no name (the recorded kubectl is /bin/true, run with its KUBECONFIG).
    proc = subprocess.run([sys.executable, "-m", "fixtures.providers.local", "kubectl", "version"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert main(["stop-all"]) == 0
    assert "stopped the local cluster second: etcd" in capsys.readouterr().out and reaped(second)
