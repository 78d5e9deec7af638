"""``python -m reference_scheduler --kubeconfig K --scheduler-name N``: see runner.py."""

import sys

from reference_scheduler.runner import main

sys.exit(main())
