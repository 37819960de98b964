"""webfetch asks per site; addresses that are not public ask in every mode; redirects are checked too."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from circle._testing.web import FakeWeb
from circle.application.approvals import ApprovalMode, ApprovalPolicy, PlanMode, PlanModeGate
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest, Approver
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolOutput
from circle.domain.approval_rules import Rule, RuleLayer
from circle.domain.errors import ApprovalDeniedError
from circle.testing import ScriptedApprover

from ._harness import Harness

PAGE = "the page"


class Person:
    """Answers every question with ``allowed`` (and ``remember``), recording what it was asked."""

    def __init__(self, *, allowed: bool = True, remember: bool = False) -> None:
        self.allowed, self.remember = allowed, remember
        self.asked: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return ApprovalDecision(
            allowed=self.allowed, reason="" if self.allowed else "no", remember=self.remember
        )


def policy(
    mode: ApprovalMode = "default", *, person: Approver | None = None, user: Sequence[Rule] = ()
) -> ApprovalPolicy:
    layers: dict[RuleLayer, list[Rule]] = {"user": list(user)}
    return ApprovalPolicy(mode, layers, person=person)


async def fetch(web: FakeWeb, approver: Approver, url: str) -> ToolOutput:
    ctx = dataclasses.replace(Harness().context(), web=web, approver=approver)
    return await builtin_tools()["webfetch"].invoke({"url": url}, ctx)


NOT_PUBLIC = [
    ("http://127.0.0.1:8080/admin?delete=1", {}, "127.0.0.1 is a loopback address"),
    ("http://127.8.9.10/", {}, "127.8.9.10 is a loopback address"),
    ("http://[::1]/", {}, ":1 is a loopback address"),
    ("http://localhost:3000/", {"localhost": ["::1", "127.0.0.1"]}, "localhost resolves to ::1, a loopback"),
    ("http://10.1.2.3/", {}, "a private address"),
    ("http://172.16.0.1/", {}, "a private address"),
    ("http://192.168.1.1/", {}, "a private address"),
    ("http://[fc00::1]/", {}, "a private address"),
    ("http://100.64.0.1/", {}, "a private address (shared"),
    ("http://169.254.169.254/latest/meta-data/", {}, "a link-local address (where cloud metadata"),
    ("http://[fe80::1]/", {}, "a link-local address"),
    ("http://0.0.0.0:8000/", {}, "the unspecified address"),
    ("http://[::]/", {}, "the unspecified address"),
    ("http://[::ffff:127.0.0.1]/", {}, "a loopback address, 127.0.0.1 written as IPv6"),
    (
        "http://[::ffff:169.254.169.254]/",
        {},
        "a link-local address (where cloud metadata is served), 169.254.169.254 written as IPv6",
    ),
    ("http://2130706433/", {}, "127.0.0.1 is a loopback address"),
    ("http://0x7f.1/", {}, "127.0.0.1 is a loopback address"),
    ("http://0177.0.0.1/", {}, "127.0.0.1 is a loopback address"),
    ("https://sneaky.example/", {"sneaky.example": ["93.184.215.14", "127.0.0.1"]}, "resolves to 127.0.0.1"),
]


@pytest.mark.parametrize(("url", "hosts", "reason"), NOT_PUBLIC)
async def test_an_address_that_is_not_public_asks_even_in_auto_mode(
    url: str, hosts: dict[str, Sequence[str]], reason: str
) -> None:
    web, person = FakeWeb(pages={url: PAGE}, hosts=hosts), Person()
    out = await fetch(web, policy("auto", person=person), url)
    assert out.text.endswith(PAGE)
    [asked] = person.asked
    assert asked.always_ask and reason in asked.ask_reason and reason in asked.summary
    assert asked.tool_name == "webfetch" and asked.kind == "other"


@pytest.mark.parametrize(("url", "hosts", "reason"), NOT_PUBLIC)
async def test_where_nobody_can_answer_it_is_refused_unrequested_saying_why(
    url: str, hosts: dict[str, Sequence[str]], reason: str
) -> None:
    web = FakeWeb(pages={url: PAGE}, hosts=hosts)
    with pytest.raises(ApprovalDeniedError) as refused:
        await fetch(web, policy("auto"), url)
    assert reason in str(refused.value) and "asks for in every mode" in str(refused.value)
    assert "only a person asked in the interface or in line mode can allow it" in str(refused.value)
    assert web.requested == []


async def test_an_allow_rule_does_not_let_a_loopback_site_run_unasked() -> None:
    url = "http://127.0.0.1:8080/"
    web = FakeWeb(pages={url: PAGE})
    allow = Rule("webfetch", "http://127.0.0.1:8080/*", "allow")
    with pytest.raises(ApprovalDeniedError, match="loopback"):
        await fetch(web, policy("auto", user=[allow]), url)
    assert web.requested == []


async def test_a_public_site_asks_once_then_is_remembered_for_the_session() -> None:
    web = FakeWeb(pages={u: PAGE for u in ("https://docs.example/a", "https://docs.example/b?q=1")})
    web.pages = {**web.pages, "https://other.example/": PAGE, "http://docs.example/a": PAGE}
    person = Person(remember=True)
    approver = policy("default", person=person)
    await fetch(web, approver, "https://docs.example/a")
    await fetch(web, approver, "https://docs.example/b?q=1")
    assert [r.subject for r in person.asked] == ["https://docs.example/a"]
    await fetch(web, approver, "https://other.example/")
    await fetch(web, approver, "http://docs.example/a")  # another scheme is another site
    assert [r.subject for r in person.asked][1:] == ["https://other.example/", "http://docs.example/a"]
    assert approver.layers["session"][0] == Rule("webfetch", "https://docs.example/*", "allow")


async def test_allowing_once_is_not_remembered() -> None:
    web, person = FakeWeb(pages={"https://docs.example/a": PAGE}), Person()
    approver = policy("default", person=person)
    await fetch(web, approver, "https://docs.example/a")
    await fetch(web, approver, "https://docs.example/a")
    assert len(person.asked) == 2


async def test_a_site_remembered_does_not_cover_a_name_that_now_resolves_to_loopback() -> None:
    web, person = FakeWeb(pages={"https://docs.example/a": PAGE}), Person(remember=True)
    approver = policy("default", person=person)
    await fetch(web, approver, "https://docs.example/a")
    web.hosts = {"docs.example": ["127.0.0.1"]}
    await fetch(web, approver, "https://docs.example/a")
    assert len(person.asked) == 2 and person.asked[1].always_ask


async def test_a_deny_rule_refuses_even_in_auto_mode() -> None:
    web, person = FakeWeb(pages={"https://attacker.example/?q=key": PAGE}), Person()
    deny = Rule("webfetch", "https://attacker.example/*", "deny")
    with pytest.raises(ApprovalDeniedError, match=r"denied by your approvals\.json"):
        await fetch(web, policy("auto", person=person, user=[deny]), "https://attacker.example/?q=key")
    assert web.requested == [] and person.asked == []


async def test_an_allow_rule_lets_a_public_site_run_where_nobody_can_answer() -> None:
    web = FakeWeb(pages={"https://docs.python.org/3/": PAGE, "https://docs.python.org.example/": PAGE})
    allow = Rule("webfetch", "https://docs.python.org/*", "allow")
    assert (await fetch(web, policy(user=[allow]), "https://docs.python.org/3/")).text.endswith(PAGE)
    with pytest.raises(ApprovalDeniedError, match="webfetch asks in default mode"):
        await fetch(web, policy(user=[allow]), "https://docs.python.org.example/")


async def test_auto_mode_allows_public_sites_without_asking() -> None:
    web, person = FakeWeb(pages={"https://docs.example/": PAGE}), Person()
    await fetch(web, policy("auto", person=person), "https://docs.example/")
    assert person.asked == [] and web.requested == ["https://docs.example/"]


async def test_the_refusal_where_nobody_can_answer_says_how_to_allow_the_site() -> None:
    web = FakeWeb(pages={"https://docs.example:8443/x": PAGE})
    with pytest.raises(ApprovalDeniedError) as refused:
        await fetch(web, policy("default"), "https://docs.example:8443/x")
    assert str(refused.value) == (
        "webfetch was not approved: webfetch asks in default mode: nobody can answer here; allow the "
        'site with a rule in approvals.json ({"tool": "webfetch", "pattern": "https://docs.example:8443/*", '
        '"effect": "allow"}), or every public site with --approval-mode auto (or --yolo)'
    )
    assert web.requested == []


async def test_a_redirect_to_loopback_is_caught_before_it_is_requested() -> None:
    start = "https://public.example/go"
    web = FakeWeb(pages={"http://127.0.0.1:8080/admin?delete=1": PAGE})
    web.redirects = {start: "http://127.0.0.1:8080/admin?delete=1"}
    with pytest.raises(ApprovalDeniedError, match=r"127\.0\.0\.1 is a loopback address"):
        await fetch(web, policy("auto"), start)
    assert web.requested == [start]


async def test_a_redirect_to_another_site_asks_for_that_site() -> None:
    web = FakeWeb(
        pages={"https://b.example/page": PAGE}, redirects={"https://a.example/": "https://b.example/page"}
    )
    person = Person(remember=True)
    out = await fetch(web, policy("default", person=person), "https://a.example/")
    assert out.text.endswith(PAGE)
    assert [r.summary for r in person.asked] == [
        "fetch https://a.example/",
        "fetch https://b.example/page (redirected from https://a.example/)",
    ]


async def test_plan_mode_lets_a_public_page_be_fetched_after_asking() -> None:
    web, person = FakeWeb(pages={"https://docs.example/": PAGE}), Person()
    gate = PlanModeGate(policy("default", person=person), PlanMode(active=True))
    assert (await fetch(web, gate, "https://docs.example/")).text.endswith(PAGE)
    assert len(person.asked) == 1


async def test_a_person_who_refuses_stops_the_fetch() -> None:
    web = FakeWeb(pages={"https://docs.example/": PAGE})
    with pytest.raises(ApprovalDeniedError, match="not approved: no"):
        await fetch(web, policy("default", person=Person(allowed=False)), "https://docs.example/")
    assert web.requested == []


async def test_websearch_asks_nothing() -> None:
    approver = ScriptedApprover()
    ctx = dataclasses.replace(Harness().context(), web=FakeWeb(), approver=approver)
    await builtin_tools()["websearch"].invoke({"query": "anything"}, ctx)
    assert approver.requests == []
