"""What a child process of a test left behind: its processes, and what it wrote under its reports directory."""

from __future__ import annotations

import json
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pids: list[int], timeout: float = 60) -> list[int]:
    """Poll /proc until none of ``pids`` is alive; return those still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.1)  # sleep-ok: polling /proc for processes to end
    return [p for p in pids if alive(p)]


def kept_block(stdout: str) -> dict[str, str]:
    """The usage block a kept cluster got (``up``, ``--keep``): its name, kubeconfig, kubectl and logs."""
    lines = stdout.splitlines()
    head = next((i for i, line in enumerate(lines) if line.startswith("gangconf: the local cluster ")), None)
    assert head is not None, f"no usage block in:\n{stdout[-3000:]}"
    block = lines[head:head + 6]
    found = {"name": block[0].split()[4], "header": block[0], "text": "\n".join(block)}
    for line in block[1:]:
        line = line.strip()
        if line.startswith("export KUBECONFIG="):
            found["kubeconfig"] = line.split("=", 1)[1]
        elif line.startswith("export PATH="):
            found["kubectl"] = line.split("=", 1)[1].split(":", 1)[0] + "/kubectl"
        elif line.startswith("logs:"):
            found["logs"] = line.split(None, 1)[1]
    return found


def run_result(reports: Path, name: str) -> dict:
    """The one result ``<profile>-<scheduler>`` (``name``) of the child run: complete or partial.

    A child run of a few suite files or of a test file of its own is partial, so its result is
    under ``results/partial/``; a child run of every suite is complete.
    """
    found = sorted((reports / "results").glob(f"{name}.json")) + sorted((reports / "results" / "partial").glob(f"*-{name}.json"))
    assert len(found) == 1, f"expected one result {name} under {reports / 'results'}, found {found}"
    return json.loads(found[0].read_text())
