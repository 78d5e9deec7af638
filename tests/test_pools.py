"""The two node pools behind one contract, without a cluster.

What the pools do on a cluster is covered where they run: fake nodes by every suite on the
local provider and by ``test_fake_nodes.py``, slots on real nodes by ``test_existing_provider.py``.
"""

from __future__ import annotations

import pytest

from fixtures.pools import NodePool, Pool, SlotPool, check_labels, pod_resources


def test_both_pools_satisfy_the_pool_contract():
    node_pool = NodePool(None, run_id="r", test_id="t", timeout=1)  # type: ignore[arg-type]
    slot_pool = SlotPool(None, run_id="r", test_id="t", timeout=1)  # type: ignore[arg-type]
    assert isinstance(node_pool, Pool) and isinstance(slot_pool, Pool)
    assert node_pool.id != slot_pool.id
    assert not isinstance(object(), Pool)


def test_fake_nodes_take_a_pods_requests_as_they_are():
    pool = NodePool(None, run_id="r", test_id="t", timeout=1)  # type: ignore[arg-type]
    resources = {"requests": {"cpu": "100m", "memory": "64Mi"}}
    assert pool.pod_resources(resources) == resources == pod_resources(pool, resources)
    assert pod_resources(object(), resources) == resources


def test_labels_must_be_one_dict_per_node():
    assert check_labels(2, None) == [{}, {}]
    with pytest.raises(ValueError, match="labels has 1 entries for 2 nodes"):
        check_labels(2, [{"zone": "a"}])
