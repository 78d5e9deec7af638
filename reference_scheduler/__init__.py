"""gangconf's reference gang scheduler: the v1.37 behaviour catalogue in executable form.

Its shape mirrors kube-scheduler's framework on purpose, so that a scheduler fork can
read off where it differs: a :class:`~reference_scheduler.framework.Status` with the
upstream codes, one protocol per extension point, a plugin registry that validates at
registration, and a clock that is virtual in unit tests and the wall clock in the runner.

This package never imports pytest.
"""
