"""The scheduler's state: cache and snapshot, pod-group state, the queue, the nominator, the API writer protocol.

Mirrors pkg/scheduler/backend.
"""
