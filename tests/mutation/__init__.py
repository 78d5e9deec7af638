"""Test-only: deliberate bugs for the reference scheduler, and the launcher that applies them."""
