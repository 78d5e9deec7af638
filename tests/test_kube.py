"""The code of fixtures.kube (reading a minor release) and fixtures.labels (the harness's names)."""

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


# -- the harness's names (fixtures.labels) ---------------------------------------------------------


def test_a_resource_name_is_an_rfc_1123_label():
    from fixtures.labels import resource_name

    assert resource_name("suites/test_quorum.py::test_waits[Two_Pods-1]") == "suites-test-quorum-py-test-waits-two-pods-1"
    assert resource_name("--") == "x"
    long_a, long_b = "t" * 100 + "[a]", "t" * 100 + "[b]"
    a, b = resource_name(long_a), resource_name(long_b)
    assert len(a) == len(b) == 63 and a != b and a[-9] == "-"
    assert resource_name(long_a, limit=20) == resource_name(long_a, limit=20)[:20] and len(resource_name(long_a, limit=20)) == 20


def test_a_tests_namespace_and_failure_directory_are_named_by_the_one_sanitiser(tmp_path):
    from fixtures.diagnostics import failure_dir
    from fixtures.labels import namespace_name, test_key

    nodeid = "suites/test_quorum.py::test_gang_waits_for_quorum[x" + "y" * 200 + "]"
    name = namespace_name(nodeid, "test_gang_waits_for_quorum[xyyy]")
    assert name.startswith(f"gc-{test_key(nodeid)}-test-gang-waits-for-quorum-xyyy") and len(name) <= 63
    where = failure_dir(tmp_path, nodeid)
    assert where.parent == tmp_path / "failures" and len(where.name) == 120
    assert where.name.startswith("suites-test-quorum-py-test-gang-waits-for-quorum-x")
