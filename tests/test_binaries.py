"""The binary cache's keys and build tags: several releases side by side, nothing built here."""

from __future__ import annotations

import pytest

from fixtures.providers.local import binaries
from fixtures.errors import HarnessError


def test_every_build_gets_its_release_tag_first():
    assert binaries.build_tags("v1.36.3") == ("k8s_1_36",)
    assert binaries.build_tags("v1.37.2", ["gangconf_fault"]) == ("k8s_1_37", "gangconf_fault")


def test_release_tags_and_extra_tags_are_added(monkeypatch):
    monkeypatch.setitem(binaries.RELEASE_BUILD_TAGS, "v1.36", ("old_plugin_api",))
    assert binaries.build_tags("v1.36.3", ["x"]) == ("k8s_1_36", "old_plugin_api", "x")
    assert binaries.build_tags("v1.37.2") == ("k8s_1_37",)


def test_each_release_and_each_set_of_extra_tags_has_its_own_cache_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("GANGCONF_CACHE", str(tmp_path))
    plain_36 = binaries._kube_dir("v1.36.3", binaries.build_tags("v1.36.3"))
    plain_37 = binaries._kube_dir("v1.37.2", binaries.build_tags("v1.37.2"))
    tagged_37 = binaries._kube_dir("v1.37.2", binaries.build_tags("v1.37.2", ["gangconf_fault"]))
    assert len({plain_36, plain_37, tagged_37}) == 3
    # The release tag alone adds nothing to the key: it follows from the version.
    assert plain_37.name == f"kube-v1.37.2-{binaries._sources_hash()}"
    assert tagged_37.name.startswith(plain_37.name + "-")
    assert binaries._kube_dir("v1.37.2", binaries.build_tags("v1.37.2", ["gangconf_fault"])) == tagged_37


@pytest.mark.parametrize("tag", ["bad tag", "a,b", "-x", ""])
def test_a_malformed_tag_is_refused_in_one_line(tag):
    with pytest.raises(HarnessError, match="is not a Go build tag") as info:
        binaries.build_tags("v1.37.2", [tag])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("version", ["1.36.3", "v1.36", "latest", "v1.36.3-rc.0"])
def test_a_version_string_that_is_not_vX_Y_Z_is_refused_before_anything_is_built(version, tmp_path, monkeypatch):
    monkeypatch.setenv("GANGCONF_CACHE", str(tmp_path / "cache"))
    with pytest.raises(HarnessError, match="is not of the form vMAJOR.MINOR.PATCH") as info:
        binaries.ensure(version)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "cache").exists()
