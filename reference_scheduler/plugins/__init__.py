"""In-tree plugins of the reference scheduler, one per module, each named as its upstream counterpart.

Mirrors pkg/scheduler/framework/plugins; :mod:`~reference_scheduler.plugins.registry` lists them
and defines the in-tree profile.
"""
