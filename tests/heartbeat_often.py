"""A pytest plugin for child runs (``-p heartbeat_often``): the recorder's heartbeat every 2 s, not every 30 s.

So that the windows of a short check (``suites/test_deadlock.py``'s 20 s) show the heartbeat
lines a 5-minute wait prints, in the controller and in every xdist worker.
"""

from fixtures import observe

observe.HEARTBEAT_SECONDS = 2.0
