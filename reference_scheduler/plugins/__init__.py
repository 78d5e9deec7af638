"""In-tree plugins of the reference scheduler, each named as its upstream counterpart."""
