"""Bad input gets one line naming the problem and the fix: no traceback, nothing left running.

The cases are the table of ``tests/bad_inputs.py``; the README's table of bad inputs is generated
from it.
"""

from __future__ import annotations

import base64
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
import yaml
from kubernetes import client, config

from bad_inputs import CASES, NO_GO_PATH, Case, readme_block
from children import wait_gone
from clusterstubs import closed_port, version_only_server
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane, binaries, pki

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def old_server() -> Iterator[str]:
    with version_only_server("v1.36.3") as url:
        yield url


@pytest.fixture(scope="module")
def real_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A local control plane (RBAC on) for the cases of credentials: its URL, CA and tokens.

    ``reader`` may get, list and watch everything and change nothing; ``revoked``'s token was
    issued and its ServiceAccount then deleted, which the server must have seen before the cases run.
    """
    base = tmp_path_factory.mktemp("cluster")
    plane = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), base / "run")
    cluster = plane.start()
    try:
        raw = yaml.safe_load(Path(cluster.kubeconfig).read_text())
        server = raw["clusters"][0]["cluster"]["server"]
        ca = Path(raw["clusters"][0]["cluster"]["certificate-authority"]).read_bytes()
        api = config.new_client_from_config(config_file=str(cluster.kubeconfig))
        core, rbac = client.CoreV1Api(api), client.RbacAuthorizationV1Api(api)
        core.create_namespace({"metadata": {"name": "badinput"}})
        for name in ("reader", "revoked"):
            core.create_namespaced_service_account("badinput", {"metadata": {"name": name}})
        rbac.create_cluster_role({"metadata": {"name": "badinput-reader"}, "rules": [
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]})
        rbac.create_cluster_role_binding({
            "metadata": {"name": "badinput-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "badinput-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "badinput"}]})
        tokens = {name: core.create_namespaced_service_account_token(name, "badinput", {"spec": {}}).status.token
                  for name in ("reader", "revoked")}
        core.delete_namespaced_service_account("revoked", "badinput")
        _wait_refused(server, base / "ca.crt", ca, tokens["revoked"])
        other = pki.generate(base / "other")
        yield {"{server}": server, "{ca}": base64.b64encode(ca).decode(),
               "{wrong_ca}": base64.b64encode(Path(other.ca_cert).read_bytes()).decode(),
               "{admin_token}": raw["users"][0]["user"]["token"], "{revoked_token}": tokens["revoked"],
               "{reader_token}": tokens["reader"]}
        api.close()
    finally:
        plane.stop()


def _wait_refused(server: str, ca_file: Path, ca: bytes, token: str, timeout: float = 30) -> None:
    """Wait until the server refuses ``token`` (401): a deleted ServiceAccount's token is refused once
    the server's informer has seen the deletion."""
    ca_file.write_bytes(ca)
    configuration = client.Configuration()
    configuration.host, configuration.ssl_ca_cert = server, str(ca_file)
    configuration.api_key = {"authorization": f"Bearer {token}"}
    with client.ApiClient(configuration) as api:
        deadline, status = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            try:
                client.VersionApi(api).get_code()
                status = 200
            except client.ApiException as exc:
                status = exc.status
                if status == 401:
                    return
            time.sleep(0.2)  # sleep-ok: polling the server for the revoked token's refusal
    raise AssertionError(f"the deleted ServiceAccount's token was not refused within {timeout} s (last: {status})")


def _fork_tree(where: Path, file: str, text: str) -> None:
    """A writable copy of the module cache's k8s.io/kubernetes@v1.37.2 (the upstream build's source), edited."""
    binaries.ensure()  # the upstream build downloads the tree into the module cache
    proc = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True, env=binaries.go_env())
    shutil.copytree(Path(proc.stdout.strip()) / f"k8s.io/kubernetes@{binaries.DEFAULT_K8S_VERSION}", where,
                    copy_function=shutil.copyfile)
    for directory, _, _ in os.walk(where):
        os.chmod(directory, 0o755)  # copytree copied the module cache's read-only directory modes
    with (where / file).open("a") as handle:
        handle.write(text)


def _wait_for_process(child: subprocess.Popen, name: str, timeout: float = 300) -> None:
    """Wait until a process named ``name`` runs in the child's session (a Go build: ``go``)."""
    deadline = time.monotonic() + timeout
    while not any(_name_of(pid) == name for pid in _in_session(child.pid)):
        assert child.poll() is None, f"the run ended (exit {child.returncode}) before {name} ran"
        assert time.monotonic() < deadline, f"no {name} ran in the child's session within {timeout:.0f} s"
        time.sleep(0.1)  # sleep-ok: polling /proc for the build to start


def _name_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _session_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
    except (OSError, IndexError, ValueError):
        return None


def _in_session(sid: int) -> list[int]:
    """The processes of session ``sid`` (the child's own: it is started as the leader of a new one)."""
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    return [pid for pid in pids if _session_of(pid) == sid]


def _run(case: Case, tmp: Path, old: str, cluster: dict[str, str]) -> tuple[subprocess.CompletedProcess, Callable]:
    values = {"{tmp}": str(tmp), "{closed}": f"https://127.0.0.1:{closed_port()}", "{old}": old, **cluster}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text

    for name, text in case.files:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(fill(text))
    for name in case.executable:
        (tmp / name).chmod(0o755)
    if case.fork_edit:
        _fork_tree(tmp / "tree", *case.fork_edit)
    cache = tmp / "cache"
    entry = ["-m", "fixtures.providers.local.binaries"] if case.command == "build" else \
        ["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp / 'r'}"]
    limit = case.file_size_limit
    child = subprocess.Popen([sys.executable, *entry, *map(fill, case.argv)], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True,
                             env={**os.environ, "GANGCONF_CACHE": str(cache), **{k: fill(v) for k, v in case.env}},
                             preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))) if limit else None)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(child.communicate()), daemon=True)
    reader.start()
    try:
        if case.interrupt_at:
            _wait_for_process(child, case.interrupt_at)
            os.killpg(child.pid, signal.SIGINT)
        reader.join(timeout=300)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        reader.join(timeout=10)
    stdout, stderr = output or ("", "")
    # The child leads a session of its own: whatever it started there must be gone with it.
    left = wait_gone(_in_session(child.pid), timeout=5)
    assert left == [], f"left running: {left}"
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr), fill


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_saying_what_to_do_and_leaves_nothing(case: Case, tmp_path: Path, old_server: str,
                                                                    request: pytest.FixtureRequest):
    try:
        proc, fill = _run(case, tmp_path, old_server, request.getfixturevalue("real_cluster") if case.cluster else {})
        _judge(case, proc, fill, tmp_path)
    finally:
        for made in ("tree", "cache"):  # a copy of upstream's tree (124 MB); upstream's binaries, where a case made them
            shutil.rmtree(tmp_path / made, ignore_errors=True)


def _judge(case: Case, proc: subprocess.CompletedProcess, fill: Callable, tmp_path: Path) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode == case.exit_code, f"exit {proc.returncode}, not {case.exit_code}:\n{out[-3000:]}"
    assert "Traceback" not in out, out[-3000:]
    says, cache = fill(case.says), tmp_path / "cache"
    lines = [line for line in out.splitlines() if says in line]
    assert len(lines) == 1, f"expected one line saying {says!r}:\n{out[-3000:]}"
    assert case.advice in lines[0], f"the line does not say what to do ({case.advice!r}): {lines[0]}"
    assert not list(cache.glob("runs/*.json")), f"a cluster was recorded under {cache / 'runs'}"
    if not case.looks_for_binaries:
        assert not cache.exists(), "something was built or started for input that was refused"
    assert not list(cache.glob("bin/*.tmp")), "a failed build left its staging directory"
    assert not list((tmp_path / "r").glob("runs/*/*")), "the refused run left files in its run directory"


def test_the_cases_are_distinct_and_at_least_twenty():
    assert len({c.id for c in CASES}) == len(CASES) >= 20
    assert len({(c.command, c.argv, c.env, c.files, c.file_size_limit) for c in CASES}) == len(CASES)
    assert all(c.says and c.advice for c in CASES), "every case names what is wrong and what to do"


def test_readme_lists_the_bad_inputs_of_the_table():
    """The README's table of bad inputs is the test's (regenerate: ``python tests/bad_inputs.py``)."""
    assert readme_block() in (REPO / "README.md").read_text(), \
        "README.md's bad inputs differ from tests/bad_inputs.py: paste the output of " \
        "`.venv/bin/python tests/bad_inputs.py` over the block between its markers"


def test_upgrade_checks_are_not_applicable_in_a_normal_run_and_build_nothing(tmp_path: Path):
    # Not bad input: a normal run that selects the upgrade suite. It must neither build nor start anything.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                           f"--reports-dir={tmp_path / 'r'}", "suites/test_upgrade.py"], cwd=REPO, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PATH": NO_GO_PATH, "GANGCONF_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stdout
    skipped = [l for l in proc.stdout.splitlines() if l.startswith("SKIPPED")]
    assert len(skipped) == 4 and all("not applicable: needs the upgrade profile (--profile upgrade)" in l
                                     for l in skipped), proc.stdout
    assert not (tmp_path / "cache").exists(), "the upgrade suite built or started something without being asked"
