"""The local provider against real processes: security, flags, readiness and clean-up.

Every test here starts real etcd, kube-apiserver, kube-controller-manager, kube-scheduler
and kwok processes; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from kubernetes import client, config

from children import alive, kept_block, wait_gone
from fixtures.providers.local import binaries
from fixtures.errors import ProfileError
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane
from fixtures.providers.runs import reap_stale_runs

REPO = Path(__file__).resolve().parent.parent


def listeners(pids: set[int]) -> list[str]:
    """Local addresses of the TCP listening sockets owned by ``pids``."""
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        if any(f"pid={p}," in line for p in pids):
            found.append(fields[3])
    return found


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path_factory.mktemp("run"))
    cp.start()
    yield cp
    cp.stop()


def test_every_component_listens_on_loopback_only(plane):
    pids = {c.pid for c in plane.components}
    addresses = listeners(pids)
    assert addresses, "no listening sockets found for the control plane"
    assert all(a.startswith("127.0.0.1:") for a in addresses), addresses


def test_credentials_are_private_to_the_run(plane):
    assert plane.secrets.stat().st_mode & 0o777 == 0o700
    files = [p for p in plane.secrets.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"ca.crt", "apiserver.key", "sa.key", "tokens.csv", "kubeconfig"}
    loose = {str(p): oct(p.stat().st_mode & 0o777) for p in files if p.stat().st_mode & 0o077}
    assert not loose, loose


def test_anonymous_requests_are_refused(plane):
    context = ssl.create_default_context(cafile=str(plane.secrets / "pki" / "ca.crt"))
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{plane.server}/readyz", context=context, timeout=5)
    assert info.value.code == 401


def test_server_reports_the_built_version_and_every_component_gets_the_same_gates(plane):
    kube = plane.component("kube-apiserver")
    api = config.new_client_from_config(config_file=str(plane.kubeconfig))
    try:
        assert client.VersionApi(api).get_code().git_version == plane.binaries.version
    finally:
        api.close()
    for name in ("kube-apiserver", "kube-controller-manager", "kube-scheduler"):
        argv = Path(f"/proc/{plane.component(name).pid}/cmdline").read_bytes().split(b"\0")
        assert b"--feature-gates=GenericWorkload=true" in argv, (name, argv)
    argv = Path(f"/proc/{kube.pid}/cmdline").read_bytes().split(b"\0")
    assert b"--runtime-config=scheduling.k8s.io/v1beta1=true" in argv
    assert b"--anonymous-auth=false" in argv


def test_kube_scheduler_serves_the_default_and_a_second_profile(plane):
    """Without --scheduler-config, kube-scheduler gets gangconf's configuration (0600): the default
    profile and gangconf-second, both with the default plugins (GANG-SCHEDNAME-001 needs two)."""
    argv = Path(f"/proc/{plane.component('kube-scheduler').pid}/cmdline").read_bytes().decode().split("\0")
    (path,) = [a.split("=", 1)[1] for a in argv if a.startswith("--config=")]
    assert Path(path).stat().st_mode & 0o077 == 0
    doc = yaml.safe_load(Path(path).read_text())
    assert [p["schedulerName"] for p in doc["profiles"]] == ["default-scheduler", "gangconf-second"]
    assert all(set(p) == {"schedulerName"} for p in doc["profiles"])
    assert doc["clientConnection"]["kubeconfig"] == str(plane.kubeconfig)
    assert doc["leaderElection"]["leaderElect"] is False
    assert not [a for a in argv if a.startswith("--leader-elect")], argv  # it would override the configuration


def test_a_users_scheduler_config_is_kept_and_names_no_second_profile(tmp_path):
    user = tmp_path / "mine.yaml"
    user.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                    "profiles": [{"schedulerName": "default-scheduler", "plugins": {}}]}))
    cp = LocalControlPlane(None, Profile.resolve("gang-beta"), tmp_path / "run", scheduler_config=user)
    cp.secrets, cp.kubeconfig = tmp_path, tmp_path / "kubeconfig"
    doc = yaml.safe_load(cp._scheduler_config_file().read_text())
    assert doc["profiles"] == [{"schedulerName": "default-scheduler", "plugins": {}}]
    assert doc["clientConnection"]["kubeconfig"] == str(tmp_path / "kubeconfig")
    assert doc["leaderElection"]["leaderElect"] is False


def test_leader_election_is_kept_when_the_users_scheduler_config_turns_it_on(tmp_path):
    """The local provider turns leader election off unless the user's configuration turns it on
    (and gives kube-scheduler no --leader-elect flag, which would override it: the test above)."""
    user = tmp_path / "mine.yaml"
    user.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                    "leaderElection": {"leaderElect": True, "leaseDuration": "20s"}}))
    cp = LocalControlPlane(None, Profile.resolve("gang-beta"), tmp_path / "run", scheduler_config=user)
    cp.secrets, cp.kubeconfig = tmp_path, tmp_path / "kubeconfig"
    doc = yaml.safe_load(cp._scheduler_config_file().read_text())
    assert doc["leaderElection"] == {"leaderElect": True, "leaseDuration": "20s"}


def test_each_component_logs_into_the_run_directory(plane):
    for c in plane.components:
        assert c.log.parent == plane.log_dir and c.log.stat().st_size > 0, c.log


def test_stop_ends_every_process_and_removes_the_credentials(tmp_path):
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path)
    cp.start()
    pids = [c.pid for c in cp.components]
    secrets, state = cp.secrets, cp.state_file
    cp.stop()
    assert wait_gone(pids, timeout=1) == []
    assert not secrets.exists() and not state.exists()


_CHILD = """
import json, sys, time
from pathlib import Path
from fixtures.providers.local import binaries
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane
cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), Path(sys.argv[1]), detachable=sys.argv[2] == "1")
cp.start()
if sys.argv[3:] == ["reference"]:
    from fixtures.reference import ReferenceScheduler
    ReferenceScheduler.for_profile(cp.cluster().api_client(), cp.profile, run_id="child", start_timeout=90,
                                   log=Path(sys.argv[1]) / "reference-scheduler.log", plane=cp).start()
print(json.dumps({"pids": [c.pid for c in cp.components], "secrets": str(cp.secrets)}), flush=True)
time.sleep(600)
"""


def _start_child(tmp_path: Path, detachable: bool, *extra: str) -> tuple[subprocess.Popen, dict]:
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path), "1" if detachable else "0", *extra],
                             cwd=REPO, stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline()
    assert line, "the child did not start a control plane"
    return child, json.loads(line)


def test_processes_die_with_a_harness_killed_by_sigkill(tmp_path):
    child, info = _start_child(tmp_path, detachable=False)
    child.kill()
    child.wait()
    assert wait_gone(info["pids"]) == [], "components outlived a SIGKILLed harness"
    reap_stale_runs()  # what the next run does first: the credentials go too
    assert not Path(info["secrets"]).exists()


def test_next_start_reaps_a_run_whose_owner_died(tmp_path):
    child, info = _start_child(tmp_path, detachable=True)  # no PDEATHSIG: the processes survive their owner
    child.kill()
    child.wait()
    assert all(alive(p) for p in info["pids"])
    reaped = reap_stale_runs()
    assert len(reaped) == len(info["pids"]), reaped
    assert wait_gone(info["pids"]) == []
    assert not Path(info["secrets"]).exists()


def test_a_reference_scheduler_beside_a_keepable_cluster_is_reaped_with_it_after_a_sigkill(tmp_path, private_runs):
    """A cluster that may be kept outlives a SIGKILLed owner, its reference scheduler too (neither has
    PR_SET_PDEATHSIG); not kept, it is stale, and the next start (or stop-all) ends both."""
    child, info = _start_child(tmp_path, True, "reference")
    (state,) = (private_runs / "runs").glob("*.json")
    recorded = json.loads(state.read_text())["processes"]
    assert [p["name"] for p in recorded][-1] == "reference-scheduler", recorded
    assert (Path(info["secrets"]) / "reference-scheduler" / "kubeconfig").is_file()  # its credentials: the cluster's
    child.kill()
    child.wait()
    pids = [p["pid"] for p in recorded]
    assert all(alive(p) for p in pids), recorded
    reaped = reap_stale_runs()
    assert len(reaped) == len(pids) and reaped[0].startswith("reference-scheduler"), reaped
    assert wait_gone(pids) == []
    assert not Path(info["secrets"]).exists() and not state.exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupted_run_leaves_no_process(tmp_path, signum):
    cmd = [sys.executable, "-u", "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s",
           f"--reports-dir={tmp_path}", "suites/test_deadlock.py", "-k", "plain"]
    child = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen = []
    for line in child.stdout:
        seen.append(line)
        if "ready in" in line:
            break
    else:
        pytest.fail("the child run never reported a ready cluster:\n" + "".join(seen[-20:]))
    runs = Path(binaries.cache_dir()) / "runs"
    state = next(p for p in runs.glob(f"{child.pid}-*.json"))
    pids = [p["pid"] for p in json.loads(state.read_text())["processes"]]
    child.send_signal(signum)
    rest, _ = child.communicate(timeout=120)
    assert wait_gone(pids) == [], "components outlived the interrupted run:\n" + rest[-2000:]
    assert not state.exists()


def test_a_forks_scheduler_binary_is_the_one_that_runs(tmp_path):
    fork = tmp_path / "fork" / "kube-scheduler"
    fork.parent.mkdir()
    fork.symlink_to(binaries.ensure().kube_scheduler.resolve())  # the multi-call binary, under a fork's path
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run", scheduler_binary=fork)
    try:
        cp.start()
        argv = Path(f"/proc/{cp.component('kube-scheduler').pid}/cmdline").read_bytes().split(b"\0")
        assert argv[0] == str(fork).encode()
    finally:
        cp.stop()


_FAILING_TEST = '''
from fixtures.pools import NodeShape

def test_fails_on_purpose(pool, gang):
    pool.add(1, NodeShape())
    gang.pod("kept")
    assert False, "failing on purpose to keep the cluster"
'''


@pytest.mark.parametrize("side_by_side", [[], ["-n", "2"]], ids=["one-process", "side-by-side"])
def test_keep_on_failure_leaves_the_cluster_and_the_tests_objects_until_down(tmp_path, side_by_side, private_runs):
    (tmp_path / "test_fail.py").write_text(_FAILING_TEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:pytest-kind", "-p", "no:cacheprovider",
         "-q", "--rootdir", str(tmp_path), "-c", os.devnull, f"--reports-dir={tmp_path / 'reports'}",
         "--keep-on-failure", *side_by_side, str(tmp_path / "test_fail.py")],
        cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 1, proc.stdout
    kept = kept_block(proc.stdout)
    (state,) = (private_runs / "runs").glob("*.json")
    pids = [p["pid"] for p in json.loads(state.read_text())["processes"]]
    try:
        assert all(alive(p) for p in pids)
        api = config.new_client_from_config(config_file=kept["kubeconfig"])
        pods = client.CoreV1Api(api).list_pod_for_all_namespaces(label_selector="gangconf.io/run").items
        assert [p.metadata.name for p in pods] == ["kept"]
        api.close()
    finally:
        down = subprocess.run([sys.executable, "-m", "fixtures.providers.local", "down", kept["name"]], cwd=REPO,
                              capture_output=True, text=True)
    assert down.returncode == 0 and f"stopped the local cluster {kept['name']}" in down.stdout, down.stdout + down.stderr
    assert wait_gone(pids) == []
    assert not Path(kept["kubeconfig"]).exists() and not state.exists()


def test_a_port_taken_before_its_component_binds_it_means_a_new_start(tmp_path, monkeypatch):
    """A port another process binds between the pick and the component's start costs a retry, not the run."""
    import socket

    from fixtures.providers.local import controlplane

    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    picks = []
    real = controlplane.free_port

    def pick() -> int:
        picks.append(None)
        return port if len(picks) == 6 else real()  # the 6th pick of the first start is kwok's

    monkeypatch.setattr(controlplane, "free_port", pick)
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run")
    try:
        cp.start()
        kwok = Path(f"/proc/{cp.component('kwok').pid}/cmdline").read_bytes().decode().split("\0")
        assert f"--server-address=127.0.0.1:{port}" not in kwok and len(picks) == 12, (kwok, len(picks))
        assert "address already in use" in (tmp_path / "run" / "logs" / "kwok.log").read_text()
    finally:
        cp.stop()
        taken.close()


def test_a_forks_scheduler_binary_that_registers_the_fault_plugin_runs_the_fault_checks(tmp_path, run_suite):
    # gangconf's own multi-call binary under a fork's path registers GangconfFaultReserve, as a fork's
    # main that follows the README does: the probe finds it and the fault checks run (and pass).
    fork = tmp_path / "fork" / "kube-scheduler"
    fork.parent.mkdir()
    fork.symlink_to(binaries.ensure().kube_scheduler.resolve())
    run = run_suite("suites/test_permit.py", "-m", "not slow", "--profile=gang-fault", f"--scheduler-binary={fork}",
                    timeout=300)
    assert run.returncode == 0, run.describe()
    assert set(run.outcomes.values()) == {"passed"} and len(run.outcomes) == 2, run.describe()


def test_a_forks_scheduler_binary_without_the_fault_plugin_ends_a_fault_run_in_one_line(tmp_path, run_suite):
    # A stand-in for a fork's binary whose main does not register the plugin: it answers --version as
    # every kube-scheduler does, and the probe with kube-scheduler v1.37.2's own refusal (seen from
    # the real binary, test_faults.py).
    fork = tmp_path / "fork" / "kube-scheduler"
    fork.parent.mkdir()
    fork.write_text("#!/bin/sh\n[ \"$1\" = --version ] && { echo 'Kubernetes v1.37.2'; exit 0; }\n"
                    "echo 'E1204 run.go:72] \"command failed\" err=\"initializing profiles: creating profile "
                    "for scheduler name default-scheduler: ReservePlugin \\\"GangconfFaultReserve\\\" does not exist\"' >&2\n"
                    "exit 1\n")
    fork.chmod(0o755)
    run = run_suite("suites/test_permit.py", "-m", "not slow", "--profile=gang-fault", f"--scheduler-binary={fork}",
                    timeout=300)
    assert run.returncode == ProfileError.exit_code, run.describe()
    lines = [line for line in (run.stdout + run.stderr).splitlines() if "does not know the plugin" in line]
    assert len(lines) == 1 and "app.WithPlugin(faultplugin.Name, faultplugin.New)" in lines[0], run.describe()
    assert "Traceback" not in run.stdout + run.stderr, run.describe()