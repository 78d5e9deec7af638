"""Test-only: run the reference scheduler with one deliberate bug (a mutant) applied.

    python tests/mutation/launch.py NAME [arguments of python -m reference_scheduler ...]
    python tests/mutation/launch.py --list

The harness starts this instead of ``python -m reference_scheduler`` when it is given
``--reference-mutant NAME``; only the mutation check (tests/test_mutation.py) does that. The
mutant is applied in this process, then the reference scheduler's own entry point runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(1, str(HERE.parent.parent))  # the repository (this directory is sys.path[0])

import mutants  # noqa: E402


def main(argv: list[str]) -> int:
    if argv[:1] == ["--list"]:
        for mutant in mutants.MUTANTS.values():
            print(f"{mutant.name}: {mutant.bug}")
        return 0
    if not argv or argv[0] not in mutants.MUTANTS:
        given = repr(argv[0]) if argv else "no mutant"
        print(f"launch.py: unknown mutant {given}; known: {', '.join(mutants.MUTANTS)}", file=sys.stderr)
        return 2
    mutant = mutants.MUTANTS[argv[0]]
    mutant.apply()
    print(f"TEST-ONLY MUTANT {mutant.name}: {mutant.bug}", file=sys.stderr, flush=True)
    from reference_scheduler.runner.main import main as run

    return run(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
