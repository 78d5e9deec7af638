"""``python -m reference_scheduler --kubeconfig K --scheduler-name N``: see runner/main.py (cmd/kube-scheduler/scheduler.go)."""

import sys

from reference_scheduler.runner.main import main

sys.exit(main())
