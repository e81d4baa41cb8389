"""`kifu serve` serves the dashboard over the ingested sample, on 127.0.0.1 only."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlparse

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, wait_for_app


def test_dashboard_opens_on_the_sample(page: Any, app_url: str) -> None:
    page.goto(app_url)
    wait_for_app(page)
    expect(page.get_by_test_id("stHeading").first).to_contain_text("Matches")
    expect(page.get_by_text("replays contest logs")).to_be_visible()  # what Kifu is, where to start
    expect(page.get_by_test_id("stHeading").nth(1)).to_contain_text("ALGORI UNO")
    expect(page.get_by_test_id("stHeading").nth(2)).to_contain_text("misbehave-bind2-40")  # the sample, in detail
    assert screenshot(page, "overview").stat().st_size > 10_000


def test_server_binds_loopback_only(app_url: str) -> None:
    port = urlparse(app_url).port
    assert port
    host_ips = {ip for *_, (ip, *_) in socket.getaddrinfo(socket.gethostname(), None) if not ip.startswith("127.")}
    for ip in host_ips - {"::1"}:
        with socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET) as s:
            s.settimeout(1)
            assert s.connect_ex((ip, port)) != 0, f"dashboard reachable on {ip}"
