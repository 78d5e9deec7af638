"""fixtures.refusals: the API-refusal assertions, on ApiException objects built by hand (pure code)."""

from __future__ import annotations

import json

import pytest
from kubernetes.client.rest import ApiException

from fixtures.refusals import assert_refused, causes_of, check_refusal, refusal, status_body


def _exc(status: int, body) -> ApiException:
    exc = ApiException(status=status, reason="refused")
    exc.body = body if isinstance(body, str) else json.dumps(body)
    return exc


INVALID = _exc(422, {"kind": "Status", "reason": "Invalid", "message": "PodGroup.scheduling.k8s.io \"pg\" is invalid",
                     "details": {"causes": [{"field": "spec.schedulingPolicy.gang.minCount",
                                             "message": "Required value"},
                                            {"field": "spec", "message": "item may not be added"}]}})


def _raise(exc):
    def call(*args, **kwargs):
        call.seen = (args, kwargs)
        raise exc
    return call


def test_a_refusal_at_the_field_passes_and_returns_the_status_body():
    call = _raise(INVALID)
    body = assert_refused(call, "manifest", status=422, field="spec.schedulingPolicy.gang.minCount",
                          text="Required", version="v1alpha3")
    assert body["reason"] == "Invalid"
    assert call.seen == (("manifest",), {"version": "v1alpha3"})


def test_the_message_is_matched_when_no_field_is_named():
    assert_refused(_raise(INVALID), text='"pg" is invalid', reason="Invalid")


def test_several_causes_can_be_asserted_on_one_refusal():
    check_refusal(INVALID, causes=[("spec", "may not be added"), ("spec.schedulingPolicy.gang.minCount", "Required")])


@pytest.mark.parametrize(("kwargs", "shown"), [
    pytest.param({"status": 403}, "expected HTTP 403, got HTTP 422 Invalid", id="status"),
    pytest.param({"reason": "BadRequest"}, "expected reason BadRequest", id="reason"),
    pytest.param({"field": "spec.workloadRef", "text": "Required"}, "expected a cause at 'spec.workloadRef'",
                 id="field"),
    pytest.param({"field": "spec", "text": "Required"}, "containing 'Required'", id="text-at-field"),
    pytest.param({"text": "not there"}, "message containing 'not there'", id="message"),
])
def test_a_mismatch_fails_showing_the_servers_answer(kwargs, shown):
    with pytest.raises(AssertionError) as info:
        assert_refused(_raise(INVALID), **kwargs)
    assert shown in str(info.value)
    assert "Required value" in str(info.value)  # the causes the server gave


def test_an_accepted_request_fails_saying_so():
    with pytest.raises(AssertionError, match="accepted the request; it answered: .*\"name\": \"pg\""):
        refusal(lambda: {"metadata": {"name": "pg"}})


def test_other_errors_are_not_taken_for_a_refusal():
    with pytest.raises(KeyError):
        refusal(_raise(KeyError("x")))


def test_a_body_that_is_not_json_is_kept_as_the_message():
    exc = _exc(400, "cannot unmarshal string")
    assert status_body(exc) == {"message": "cannot unmarshal string"}
    assert causes_of(exc) == []
    assert check_refusal(exc, status=400, text="unmarshal")["message"] == "cannot unmarshal string"


def test_the_helpers_hide_their_frames():
    for fn in (refusal, check_refusal, assert_refused):
        assert "__tracebackhide__" in fn.__code__.co_varnames
