"""The provider table: every ``--provider`` value names a class with the Provider protocol's shape."""

from __future__ import annotations

import inspect

import pytest

from fixtures.providers import PROVIDERS, provider_class


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_each_provider_is_named_as_its_option_value_and_has_the_protocols_methods(name):
    cls = provider_class(name)
    assert cls.name == name
    for method in ("start", "ready_line", "stop"):
        assert callable(getattr(cls, method, None)), (name, method)
    assert inspect.signature(cls.stop).parameters["keep"].kind is inspect.Parameter.KEYWORD_ONLY
    keywords = set(inspect.signature(cls.from_config).parameters) - {"config"}
    assert keywords == {"profile", "run_dir", "timeouts", "run_id", "keepable"}, (name, keywords)


def test_an_unknown_provider_is_not_looked_up():
    with pytest.raises(KeyError):
        provider_class("minikube")
