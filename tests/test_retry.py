"""The harness's retry policy (fixtures.retry) and its one poll loop (fixtures.waiting)."""

import pytest
import urllib3.exceptions
from kubernetes.client.rest import ApiException

from fixtures import retry
from fixtures.errors import WaitTimeout
from fixtures.waiting import poll_until


def _failing(errors, result="done"):
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return result
    return call, calls


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(retry, "GIVE_UP_AFTER", 2.0)


@pytest.mark.parametrize("status", sorted(retry.TRANSIENT_STATUS))
def test_a_read_is_retried_through_a_loaded_servers_answers(status):
    call, calls = _failing([ApiException(status=status), urllib3.exceptions.ProtocolError("reset")])
    assert retry.api_call(call) == "done" and len(calls) == 3


@pytest.mark.parametrize("status", [400, 403, 404, 409, 422])
def test_an_answer_is_never_retried(status):
    call, calls = _failing([ApiException(status=status)])
    with pytest.raises(ApiException) as info:
        retry.api_call(call)
    assert info.value.status == status and len(calls) == 1


def test_a_create_is_retried_only_when_the_server_did_not_act_on_it():
    call, calls = _failing([ApiException(status=429)])
    assert retry.create_call(call) == "done" and len(calls) == 2
    call, calls = _failing([ApiException(status=504)])
    with pytest.raises(ApiException):
        retry.create_call(call)
    assert len(calls) == 1


def test_retry_after_is_honoured_and_bounded():
    throttled = ApiException(status=429)
    throttled.headers = {"Retry-After": "0"}
    call, calls = _failing([throttled, throttled])
    assert retry.api_call(call) == "done" and len(calls) == 3


def test_a_conflict_reruns_the_read_modify_write_a_bounded_number_of_times():
    call, calls = _failing([ApiException(status=409)] * 2)
    assert retry.on_conflict(call) == "done" and len(calls) == 3
    call, calls = _failing([ApiException(status=409)] * 5)
    with pytest.raises(ApiException):
        retry.on_conflict(call, attempts=3)
    assert len(calls) == 3


def test_poll_until_returns_the_first_truthy_probe():
    values = iter([None, 0, "ready"])
    assert poll_until(lambda: next(values), timeout=5, describe=str) == "ready"


def test_poll_until_fails_with_the_last_observation():
    with pytest.raises(WaitTimeout, match=r"after 0s: last seen \[\]"):
        poll_until(list, timeout=0.2, describe=lambda last: f"last seen {last}")
