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


# -- watch_until: the loop's logic, with the watch between two lists stood in for ------------------


class _Listing:
    def __init__(self, items, version="1"):
        self.items = items
        self.metadata = type("Meta", (), {"resource_version": version})()


def test_watch_until_lists_again_after_each_change_and_returns_the_predicates_value(monkeypatch):
    from fixtures import waiting

    listings = iter([_Listing([]), _Listing(["a"], "2"), _Listing(["a", "b"], "3")])
    watched = []
    monkeypatch.setattr(waiting, "next_change", lambda fn, version, seconds, **kw: watched.append((version, kw)))
    found = waiting.watch_until(lambda **kw: next(listings), lambda listing: len(listing.items) == 2 and "both",
                                timeout=5, describe=str, label_selector="x=y")
    assert found == "both"
    assert watched == [("1", {"label_selector": "x=y"}), ("2", {"label_selector": "x=y"})]


def test_watch_until_fails_with_the_last_listing(monkeypatch):
    from fixtures import waiting

    monkeypatch.setattr(waiting, "next_change", lambda *a, **kw: None)
    with pytest.raises(WaitTimeout, match=r"after 0s: seen \['a'\]"):
        waiting.watch_until(lambda: _Listing(["a"]), lambda listing: False, timeout=0.05,
                            describe=lambda listing: f"seen {listing.items}")


def test_watch_until_retries_a_transient_list_failure(monkeypatch):
    from fixtures import waiting

    call, calls = _failing([ApiException(status=503)], result=_Listing(["a"]))
    assert waiting.watch_until(lambda: call(), lambda listing: listing.items, timeout=5, describe=str) == ["a"]
    assert len(calls) == 2


@pytest.mark.parametrize("error", [ApiException(status=410), ApiException(status=504),
                                   urllib3.exceptions.ProtocolError("reset")])
def test_a_watch_that_cannot_go_on_only_means_listing_again(error):
    from fixtures.waiting import next_change

    def list_fn(**kwargs):
        assert kwargs["watch"] and kwargs["resource_version"] == "7"
        raise error
    next_change(list_fn, "7", 1.0)


def test_a_watch_refused_outright_is_raised():
    from fixtures.waiting import next_change

    def list_fn(**kwargs):
        raise ApiException(status=403)
    with pytest.raises(ApiException):
        next_change(list_fn, "7", 1.0)


@pytest.mark.parametrize("backoff, first, most", [(retry.BACKOFF, 0.1, 2.0), (retry.CONFLICT_BACKOFF, 0.05, 1.0)])
def test_the_back_off_doubles_from_its_first_pause_to_its_longest_with_a_little_jitter(backoff, first, most):
    import tenacity

    def pause(attempt):
        state = tenacity.RetryCallState(None, None, (), {})
        state.attempt_number = attempt
        return backoff(state)
    for attempt, base in [(1, first), (2, 2 * first), (3, 4 * first), (20, most)]:
        assert base <= pause(attempt) <= base + first, attempt
