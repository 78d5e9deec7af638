"""Owned temporary directories: a killed run's are removed, a live run's and anyone else's are not."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fixtures import processes


def test_owned_tempdir_names_its_owner_and_is_private():
    path = processes.owned_tempdir("gangconf-reference-")
    try:
        assert path.name.startswith(f"gangconf-reference-{os.getpid()}-{processes.process_start_time(os.getpid())}-")
        assert path.stat().st_mode & 0o777 == 0o700
    finally:
        path.rmdir()


def test_unknown_prefix_is_refused():
    with pytest.raises(ValueError, match="not one of"):
        processes.owned_tempdir("someone-else-")


def test_only_directories_of_dead_owners_are_reaped(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # its pid names a process that no longer runs
    me = os.getpid()
    dead = tmp_path / f"gangconf-reference-{child.pid}-1-abc"
    recycled = tmp_path / f"gangconf-bench-{me}-1-abc"  # this pid, another start time: the owner is gone
    alive = tmp_path / f"gangconf-bench-{me}-{processes.process_start_time(me)}-abc"
    foreign = [tmp_path / "gangconf-reference-notapid", tmp_path / f"other-{child.pid}-1-abc",
               tmp_path / f"gangconf-unknown-{child.pid}-1-abc"]
    for path in (dead, recycled, alive, *foreign):
        path.mkdir()
        (path / "kubeconfig").write_text("secret")

    assert sorted(processes.reap_orphans(tmp_path)) == sorted([dead, recycled])
    assert not dead.exists() and not recycled.exists()
    assert alive.exists() and all(p.exists() for p in foreign)
