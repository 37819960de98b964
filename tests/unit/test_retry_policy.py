"""The retry policy as pure functions: classification, budgets, backoff, deadlines and hints."""

from __future__ import annotations

import email.utils

import pytest

from circle.domain.endpoint_hints import (
    DROPPABLE_PARAMETERS,
    format_duration,
    is_spent_quota,
    parse_retry_after,
    quota_note,
    rejected_parameter,
    request_keys,
    should_retry_header,
)
from circle.domain.errors import (
    ConfigError,
    ContextOverflowError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ProviderProtocolError,
    RateLimitedError,
)
from circle.domain.retry import (
    BUDGETS,
    Budget,
    Failure,
    FailureKind,
    GiveUp,
    Retry,
    RetryLedger,
    TimeoutPolicy,
    backoff,
    classify,
    decide,
    gave_up_note,
    retry_line,
)

NOW = 1000.0
WALL = 1_700_000_000.0


def http(status: int, message: str = "failed", **kwargs: object) -> ModelHTTPError:
    cls = RateLimitedError if status == 429 else ModelHTTPError
    return cls(message, status=status, **kwargs)  # type: ignore[arg-type]


# --- classification ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ModelConnectionError("no answer", kind="timeout"), "timeout"),
        (ModelConnectionError("refused", kind="connect"), "unreachable"),
        (ModelConnectionError("broke", kind="dropped"), "dropped"),
        (ModelConnectionError("bad certificate", kind="tls"), "tls"),
        (http(408), "timeout"),
        (http(504), "timeout"),
        (http(524), "timeout"),
        (http(429, "rate limited (429): slow down"), "rate_limit"),
        (http(500), "server"),
        (http(502), "server"),
        (http(503), "server"),
        (http(529), "server"),
        (http(520), "server"),
        (http(501), "fatal"),
        (http(505), "fatal"),
        (http(400, "bad request"), "fatal"),
        (http(401), "fatal"),
        (http(403), "fatal"),
        (http(404), "fatal"),
        (http(400, "x", param="temperature"), "rejected_parameter"),
        (http(422, "body.stream_options: Extra inputs are not permitted"), "rejected_parameter"),
        (ModelStreamError("overloaded", status=529), "server"),
        (ModelStreamError("rate", status=429), "rate_limit"),
        (ModelStreamError("api", status=500), "server"),
        (ModelStreamError("timed out", status=504), "timeout"),
        (ModelStreamError("something", status=None), "stream_error"),
        (ModelStreamError("invalid", status=400), "fatal"),
        (ModelStreamError("Unsupported parameter: 'temperature'", status=400), "fatal"),
        (ProviderProtocolError("not JSON"), "stream_error"),
        (ContextOverflowError("too long"), "fatal"),
        (ModelError("the SDK failed"), "fatal"),
    ],
)
def test_each_error_is_classified_into_its_kind(error: ModelError, kind: FailureKind) -> None:
    assert classify(error).kind == kind


def test_x_should_retry_false_is_never_retried() -> None:
    assert classify(http(503, should_retry=False)).kind == "fatal"
    assert classify(http(429, should_retry=False)).kind == "fatal"


def test_x_should_retry_true_retries_a_status_that_is_otherwise_final() -> None:
    assert classify(http(409, should_retry=True)).kind == "server"


def test_a_429_with_a_retry_after_beyond_the_window_is_a_spent_quota() -> None:
    assert classify(http(429, retry_after=601.0)).kind == "quota"
    assert classify(http(429, retry_after=600.0)).kind == "rate_limit"


@pytest.mark.parametrize(
    "message",
    [
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "Your credit balance is too low to access the API.",
        "Rate limit exceeded: free-models-per-day.",
        "Your credits have been exhausted",
    ],
)
def test_a_429_whose_body_says_the_quota_or_credit_is_spent_is_a_quota(message: str) -> None:
    assert classify(http(429, f"rate limited (429): {message}")).kind == "quota"


def test_a_429_that_is_a_rate_is_not_a_quota() -> None:
    groq = (
        "Rate limit reached for model in organization on tokens per minute (TPM). Please try again in 292ms."
    )
    assert not is_spent_quota(groq, 0.3, window_s=600)
    assert not is_spent_quota("This request would exceed your account's rate limit.", None, window_s=600)
    google = "Quota exceeded for quota metric 'Generate Content API requests' per minute"
    assert not is_spent_quota(google, None, window_s=600)


def test_the_retry_after_and_parameter_travel_with_the_failure() -> None:
    assert classify(http(503, retry_after=7.0)) == Failure("server", retry_after=7.0)
    assert classify(http(400, param="reasoning_effort")) == Failure(
        "rejected_parameter", parameter="reasoning_effort"
    )


# --- decisions -----------------------------------------------------------------------------------


def run_until_given_up(failure: Failure, *, step: float = 0.0) -> tuple[list[Retry], GiveUp]:
    """Decide over and over for the same failure, as the guard does, until it gives up."""
    ledger, now, retries = RetryLedger(), NOW, list[Retry]()
    while True:
        decision = decide(failure, ledger, now=now, wall_time=WALL, jitter=0.0)
        if isinstance(decision, GiveUp):
            return retries, decision
        retries.append(decision)
        ledger = ledger.after(decision, now=now)
        now += decision.delay_s + step


@pytest.mark.parametrize(
    ("kind", "retries", "delays"),
    [
        ("timeout", 10, [1, 2, 4, 8, 16, 30, 30, 30, 30, 30]),
        ("rate_limit", 5, [2, 4, 8, 16, 32]),
        ("server", 6, [1, 2, 4, 8, 16, 32]),
        ("dropped", 6, [1, 2, 4, 8, 16, 32]),
        ("stream_error", 3, [1, 2, 4]),
    ],
)
def test_each_kind_is_retried_its_number_of_times_with_doubling_waits(
    kind: FailureKind, retries: int, delays: list[float]
) -> None:
    made, gave_up = run_until_given_up(Failure(kind))

    assert [r.attempt for r in made] == list(range(1, retries + 1))
    assert {r.max_attempts for r in made} == {retries}
    assert [r.delay_s for r in made] == delays
    assert gave_up == GiveUp(kind, f" (gave up after {retries} retries)")


@pytest.mark.parametrize("kind", ["quota", "tls", "unreachable", "fatal"])
def test_quota_tls_unreachable_and_fatal_failures_are_never_retried(kind: FailureKind) -> None:
    made, gave_up = run_until_given_up(Failure(kind))

    assert made == []
    assert gave_up.kind == kind


def test_a_wait_the_endpoint_asked_for_is_kept_as_it_is() -> None:
    decision = decide(
        Failure("rate_limit", retry_after=42.5), RetryLedger(), now=NOW, wall_time=WALL, jitter=0.9
    )

    assert decision == Retry("rate_limit", 1, 5, 42.5)


def test_rate_limits_stop_when_the_next_wait_would_end_beyond_ten_minutes() -> None:
    made, gave_up = run_until_given_up(Failure("rate_limit", retry_after=250.0))

    assert [r.delay_s for r in made] == [250.0, 250.0]  # the third would end at 750 s
    assert gave_up == GiveUp("rate_limit", " (gave up after 2 retries)")


def test_server_errors_stop_when_the_next_wait_would_end_beyond_five_minutes() -> None:
    made, _ = run_until_given_up(Failure("server"), step=100.0)  # each failure takes 100 s to come

    assert len(made) == 3  # at 0, 101 and 203 s; the fourth would end past 300 s


def test_timeouts_have_no_window() -> None:
    made, _ = run_until_given_up(Failure("timeout"), step=300.0)

    assert len(made) == 10


def test_jitter_lengthens_a_backoff_by_at_most_a_quarter() -> None:
    budget = Budget(5, first_delay_s=2.0, max_delay_s=10.0)

    assert backoff(budget, 1, jitter=0.0) == 2.0
    assert backoff(budget, 2, jitter=0.5) == 4.5
    assert backoff(budget, 3, jitter=0.999) < 10.0
    assert backoff(budget, 4, jitter=1.0) == 12.5
    assert backoff(budget, 9, jitter=0.0) == 10.0


def test_kinds_keep_their_own_counts_and_the_note_counts_every_retry() -> None:
    ledger = RetryLedger()
    kinds: tuple[FailureKind, ...] = ("rate_limit", "server", "rate_limit")
    for kind in kinds:
        decision = decide(Failure(kind), ledger, now=NOW, wall_time=WALL, jitter=0.0)
        assert isinstance(decision, Retry)
        ledger = ledger.after(decision, now=NOW)

    assert (ledger.retries("rate_limit"), ledger.retries("server"), ledger.total) == (2, 1, 3)
    assert decide(Failure("fatal"), ledger, now=NOW, wall_time=WALL, jitter=0.0) == GiveUp(
        "fatal", " (gave up after 3 retries)"
    )


def test_a_rejected_parameter_is_sent_again_at_once_and_only_once() -> None:
    failure = Failure("rejected_parameter", parameter="temperature")

    first = decide(failure, RetryLedger(), now=NOW, wall_time=WALL, jitter=0.5)
    again = decide(
        failure, RetryLedger(), now=NOW, wall_time=WALL, jitter=0.5, dropped=frozenset({"temperature"})
    )

    assert first == Retry("rejected_parameter", 1, 5, 0.0, parameter="temperature")
    assert again == GiveUp("rejected_parameter")


def test_a_spent_quota_says_when_it_resets() -> None:
    decision = decide(
        Failure("quota", retry_after=7200.0), RetryLedger(), now=NOW, wall_time=WALL, jitter=0.0
    )

    assert decision == GiveUp("quota", " — the quota is spent; it resets in 2h (at 2023-11-15 00:13 UTC)")
    assert (
        quota_note(None, wall_time=WALL) == " — the quota is spent (the endpoint did not say when it resets)"
    )


def test_the_gave_up_note_is_empty_without_retries() -> None:
    assert gave_up_note(0) == ""
    assert gave_up_note(1) == " (gave up after 1 retry)"
    assert gave_up_note(10) == " (gave up after 10 retries)"


def test_the_budgets_are_the_ones_the_spec_names() -> None:
    assert {kind: (b.retries, b.window_s) for kind, b in BUDGETS.items()} == {
        "timeout": (10, None),
        "rate_limit": (5, 600.0),
        "server": (6, 300.0),
        "dropped": (6, 300.0),
        "stream_error": (3, None),
        "rejected_parameter": (5, None),
    }


# --- deadlines -----------------------------------------------------------------------------------


def test_each_timeout_doubles_the_wait_for_the_answer_to_start_up_to_five_minutes() -> None:
    policy = TimeoutPolicy()

    assert [policy.first_event_deadline(n) for n in range(6)] == [45, 90, 180, 300, 300, 300]


def test_each_timeout_doubles_the_stall_deadline_up_to_eight_times() -> None:
    policy = TimeoutPolicy()

    assert [policy.stall_deadline(n) for n in range(6)] == [180, 360, 720, 1440, 1440, 1440]
    assert policy.longest_s == 1440


def test_a_first_deadline_above_five_minutes_is_kept() -> None:
    assert TimeoutPolicy(first_event_s=400).first_event_deadline(3) == 400


def test_the_deadlines_come_from_the_environment() -> None:
    policy = TimeoutPolicy.from_env({"CIRCLE_LLM_TIMEOUT": "10", "CIRCLE_LLM_STALL_TIMEOUT": "2.5"})

    assert (policy.first_event_s, policy.stall_s) == (10.0, 2.5)
    assert TimeoutPolicy.from_env({}) == TimeoutPolicy()


@pytest.mark.parametrize("value", ["soon", "0", "-3", "nan", "inf"])
def test_a_deadline_that_is_not_a_positive_number_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError, match="CIRCLE_LLM_STALL_TIMEOUT"):
        TimeoutPolicy.from_env({"CIRCLE_LLM_STALL_TIMEOUT": value})


# --- the endpoint's hints ------------------------------------------------------------------------


def test_retry_after_ms_comes_first() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}, WALL) == 1.5


def test_retry_after_in_seconds() -> None:
    assert parse_retry_after({"retry-after": "20"}, WALL) == 20.0
    assert parse_retry_after({"Retry-After": "0.5"}, WALL) == 0.5


def test_retry_after_as_an_http_date() -> None:
    date = email.utils.formatdate(WALL + 120, usegmt=True)

    assert parse_retry_after({"retry-after": date}, WALL) == pytest.approx(120.0)
    assert parse_retry_after({"retry-after": email.utils.formatdate(WALL - 5, usegmt=True)}, WALL) == 0.0


def test_unusable_retry_after_values_are_ignored() -> None:
    assert parse_retry_after({}, WALL) is None
    assert parse_retry_after({"retry-after": "soon"}, WALL) is None
    assert parse_retry_after({"retry-after-ms": "x", "retry-after": "3"}, WALL) == 3.0
    assert parse_retry_after({"retry-after": "-4"}, WALL) == 0.0
    assert parse_retry_after({"retry-after": "nan"}, WALL) is None


def test_x_should_retry_is_read_as_a_bool() -> None:
    assert should_retry_header({"x-should-retry": "true"}) is True
    assert should_retry_header({"X-Should-Retry": "false"}) is False
    assert should_retry_header({"x-should-retry": "maybe"}) is None
    assert should_retry_header({}) is None


@pytest.mark.parametrize(
    ("param", "message", "name"),
    [
        ("temperature", "Invalid 'temperature': decimal below minimum value.", "temperature"),
        ("web_search_options", "Web search options not supported with this model.", "web_search_options"),
        ("reasoning.effort", "Unsupported value", "reasoning"),
        ("messages[0].role", "Unsupported value: 'messages[0].role' does not support 'developer'.", None),
        ("input", "Item 'rs_1' of type 'reasoning' was provided without its required following item.", None),
        (
            None,
            "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
            "parallel_tool_calls",
        ),
        (None, "Unrecognized request argument supplied: reasoning_effort", "reasoning_effort"),
        (None, "body.stream_options: Extra inputs are not permitted", "stream_options"),
        (
            None,
            '{"detail":[{"loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}',
            "stream_options",
        ),
        (None, "thinking.budget_tokens: Input should be greater than or equal to 1024", "thinking"),
        (None, "temperature is not supported for this model", "temperature"),
        (None, "messages.5.content.24: Invalid `signature` in `thinking` block", None),
        (None, "The `thinking` blocks in the latest assistant message cannot be modified.", None),
        (None, "This model does not support effort level 'xhigh'.", None),
        (None, "Please reduce the length of the messages.", None),
        (None, "temperature was fine", None),
    ],
)
def test_the_rejected_parameter_is_read_from_param_or_the_message(
    param: str | None, message: str, name: str | None
) -> None:
    assert rejected_parameter(param, message) == name


def test_only_optional_parameters_are_ever_dropped() -> None:
    assert not DROPPABLE_PARAMETERS & {"model", "messages", "input", "tools", "stream", "system"}


def test_a_dropped_parameter_also_drops_its_other_name() -> None:
    assert request_keys(frozenset({"reasoning"})) == {"reasoning", "reasoning_effort"}
    assert request_keys(frozenset({"temperature"})) == {"temperature"}


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.25, "250ms"),
        (1, "1s"),
        (1.5, "1.5s"),
        (12.4, "12s"),
        (242, "4m 2s"),
        (300, "5m"),
        (3900, "1h 5m"),
        (7200, "2h"),
    ],
)
def test_durations_read_as_a_person_reads_them(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_the_retry_line_says_kind_count_and_wait() -> None:
    assert retry_line("timeout", 3, 10, 242) == "Retrying… · timeout 3/10 · 4m 2s"
    assert retry_line("rate_limit", 1, 5, 2) == "Retrying… · rate limit 1/5 · 2s"


@pytest.mark.parametrize(
    ("message", "allowed"),
    [
        (
            "max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for claude-x",
            64_000,
        ),
        ("max_tokens is too large: 100000. This model supports at most 16384 completion tokens", 16_384),
        (
            "'max_tokens' or 'max_completion_tokens' is too large: 30000. This model's maximum context"
            " length is 32768 tokens and your request has 3000 input tokens (30000 > 32768 - 3000).",
            29_768,
        ),
        ("max_tokens must be less than or equal to 8192", 8_192),
        ("max_tokens: Field required", None),
    ],
)
def test_a_refused_output_limit_is_lowered_to_what_the_endpoint_allows(
    message: str, allowed: int | None
) -> None:
    failure = classify(ModelHTTPError(f"the endpoint answered 400: {message}", status=400))
    assert failure.output_limit == allowed
    retry = decide(failure, RetryLedger(), now=0.0, wall_time=0.0, jitter=0.0)
    if allowed is not None:
        assert isinstance(retry, Retry) and retry.output_limit == allowed and retry.parameter is None
        again = decide(failure, RetryLedger(), now=0.0, wall_time=0.0, jitter=0.0, output_cap=allowed)
        assert isinstance(again, GiveUp)
