"""The coordinates of fixtures.kube that are code, not constants: reading a server's minor release."""

import pytest

from fixtures.kube import minor
from fixtures.preflight import server_minor
from fixtures.profiles import gate_list_file


@pytest.mark.parametrize("version, expected", [("v1.37.2", 37), ("1.36", 36), ("v1.37.0-gke.100", 37),
                                               ("v1.37.0-rc.1+k3s1", 37), (" v1.9.3", 9)])
def test_minor_reads_every_shape_of_a_v1_version(version, expected):
    assert minor(version) == expected


@pytest.mark.parametrize("version", ["v2.0.0", "", "latest", "v1.x"])
def test_minor_refuses_what_is_not_a_v1_version(version):
    with pytest.raises(ValueError, match="is not a Kubernetes v1.MINOR version"):
        minor(version)


def test_a_server_version_that_cannot_be_read_is_never_new_enough():
    assert server_minor("v1.37.2") == 37 and server_minor("unknown") == 0


def test_profiles_name_gate_lists_by_minor_release():
    assert gate_list_file("v1.36.3").name == "feature-gates-v1.36.txt"
