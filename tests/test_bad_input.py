"""Bad input gets one line naming the problem and the fix: no traceback, nothing left running.

The cases are the table of ``tests/bad_inputs.py``; the README's table of bad inputs is generated
from it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from bad_inputs import CASES, NO_GO_PATH, Case, readme_block
from children import wait_gone
from clusterstubs import closed_port, version_only_server

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def old_server() -> Iterator[str]:
    with version_only_server("v1.36.3") as url:
        yield url


def _session_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
    except (OSError, IndexError, ValueError):
        return None


def _in_session(sid: int) -> list[int]:
    """The processes of session ``sid`` (the child's own: it is started as the leader of a new one)."""
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    return [pid for pid in pids if _session_of(pid) == sid]


def _run(case: Case, tmp: Path, old: str) -> tuple[subprocess.CompletedProcess, Path]:
    values = {"{tmp}": str(tmp), "{closed}": f"https://127.0.0.1:{closed_port()}", "{old}": old}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text

    for name, text in case.files:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(fill(text))
    for name in case.executable:
        (tmp / name).chmod(0o755)
    cache = tmp / "cache"
    entry = ["-m", "fixtures.providers.local.binaries"] if case.command == "build" else \
        ["-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp / 'r'}"]
    limit = case.file_size_limit
    child = subprocess.Popen([sys.executable, *entry, *map(fill, case.argv)], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True,
                             env={**os.environ, "GANGCONF_CACHE": str(cache), **{k: fill(v) for k, v in case.env}},
                             preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))) if limit else None)
    try:
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # The child leads a session of its own: whatever it started there must be gone with it.
    left = wait_gone(_in_session(child.pid), timeout=5)
    assert left == [], f"left running: {left}"
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr), cache


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_saying_what_to_do_and_leaves_nothing(case: Case, tmp_path: Path, old_server: str):
    proc, cache = _run(case, tmp_path, old_server)
    out = proc.stdout + proc.stderr
    assert proc.returncode == case.exit_code, f"exit {proc.returncode}, not {case.exit_code}:\n{out[-3000:]}"
    assert "Traceback" not in out, out[-3000:]
    says = case.says.replace("{tmp}", str(tmp_path))
    lines = [line for line in out.splitlines() if says in line]
    assert len(lines) == 1, f"expected one line saying {says!r}:\n{out[-3000:]}"
    assert case.advice in lines[0], f"the line does not say what to do ({case.advice!r}): {lines[0]}"
    assert not list(cache.glob("runs/*.json")), f"a cluster was recorded under {cache / 'runs'}"
    if not case.looks_for_binaries:
        assert not cache.exists(), "something was built or started for input that was refused"
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
