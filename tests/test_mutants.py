"""The mutation check's own parts, without a cluster: the launcher, the mutants, the test-only option."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mutation import plugin as mutation_plugin
from mutation.mutants import MUTANTS

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = REPO / "tests" / "mutation" / "launch.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=mutation_plugin.child_env())


def test_the_reference_scheduler_holds_no_mutation_code():
    offenders = [str(path.relative_to(REPO)) for path in (REPO / "reference_scheduler").rglob("*.py")
                 if "mutant" in path.read_text().lower() or "mutation" in path.read_text().lower()]
    assert offenders == []


def test_every_mutant_declares_a_killer_by_file_and_selection():
    for mutant in MUTANTS.values():
        assert mutant.killers, mutant.name
        for killer in mutant.killers:
            assert killer.file.startswith("suites/test_") and killer.file.endswith(".py"), killer
            assert bool(killer.tests) != bool(killer.marker), f"{mutant.name}: name tests or a marker, not both"


def test_the_launcher_lists_the_mutants_and_refuses_an_unknown_one_in_one_line():
    listed = _run(str(LAUNCHER), "--list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split(":", 1)[0] for line in listed.stdout.splitlines()] == list(MUTANTS)

    unknown = _run(str(LAUNCHER), "no-such-mutant", "--kubeconfig=/nonexistent")
    assert unknown.returncode == 2
    assert unknown.stderr.strip().count("\n") == 0 and "unknown mutant 'no-such-mutant'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_every_mutant_applies_to_the_current_reference_scheduler():
    """Each mutant still finds the function it replaces (a refactor of the reference scheduler would show here)."""
    for name in MUTANTS:
        proc = _run(str(LAUNCHER), name, "--kubeconfig=/nonexistent")
        # The mutant applies, then the real entry point refuses the kubeconfig: exit 2, no traceback.
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (name, proc.stderr)
        assert f"TEST-ONLY MUTANT {name}:" in proc.stderr and "cannot load kubeconfig" in proc.stderr, (name, proc.stderr)


def test_reference_mutant_needs_the_reference_scheduler(tmp_path: Path):
    proc = _run("-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path}", *mutation_plugin.ARGS,
                "--reference-mutant=no-quorum-gate", "suites/test_quorum.py")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--reference-mutant is a test-only option of the reference scheduler" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_gangconf_itself_has_no_mutant_option(tmp_path: Path):
    """The option is the mutation plugin's: without it, gangconf does not know --reference-mutant."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path}",
                           "--reference-mutant=no-quorum-gate", "--scheduler=reference", "suites/test_quorum.py"],
                          cwd=REPO, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 4 and "unrecognized arguments: --reference-mutant" in proc.stderr, proc.stderr
