"""The web client on a weak Wi-Fi (issue #41 item 9), against a real `toadstool serve`.

Its files go gzipped to a browser that accepts it (identical bytes once inflated) and carry an ETag, so a
second visit is answered 304 with no body; a first load of the lobby is under 100 KB on the wire. In a real
headless Chromium throttled as a weak Wi-Fi (1.6 Mbit/s, 150 ms round trip, Chromium's own network
emulation), the lobby's first load is measured with the browser's own timing: the bytes and requests are
asserted, and the time until the lobby is usable (its games and tables drawn) is printed, not asserted (a
loaded 2-core machine makes any wall-clock bound either loose or flaky). The QR code endpoint draws only
pages of this client.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_helpers import browser, wait_for, web_server

#: The most a first load may take on the wire (the page, its script and style sheet, the first answers).
FIRST_LOAD_BYTES = 100_000
#: Chromium's network emulation: 1.6 Mbit/s down, 750 kbit/s up, 150 ms added to each round trip.
WEAK_WIFI = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
#: Set by a script Chromium runs before the page's own: when the lobby is usable (performance.now(), ms).
USABLE_PROBE = """
new MutationObserver((_, observer) => {
  if (document.querySelector('.game-card') && document.querySelector('.tables h2')) {
    window.__usable = performance.now();
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


def test_the_files_go_gzipped_with_an_etag_and_a_second_visit_gets_304(web_url: str) -> None:
    total = 0
    with httpx.Client(base_url=web_url, timeout=10) as http:
        for path in ("/", "/app.js", "/style.css"):
            plain = http.get(path, headers={"accept-encoding": "identity"})
            packed = http.get(path, headers={"accept-encoding": "gzip, deflate, br"})
            assert plain.status_code == packed.status_code == 200
            assert "content-encoding" not in plain.headers
            assert packed.headers["content-encoding"] == "gzip", path
            assert packed.headers["vary"] == "Accept-Encoding"
            wire = int(packed.headers["content-length"])
            if len(plain.content) > 4096:
                assert wire < len(plain.content) / 2, f"{path}: {wire} bytes gzipped of {len(plain.content)}"
            assert gzip.decompress(_raw(http, path)) == plain.content
            etag = packed.headers["etag"]
            assert etag == plain.headers["etag"]
            again = http.get(path, headers={"accept-encoding": "gzip", "if-none-match": etag})
            assert again.status_code == 304
            assert again.content == b""
            changed = http.get(path, headers={"if-none-match": '"not-this-one"'})
            assert changed.status_code == 200
            total += wire
        refused = http.get("/qr.svg", params={"page": "javascript:alert(1)"})
        assert refused.status_code == 400
        elsewhere = http.get("/qr.svg", params={"page": "#/t/abc/../../x"})
        assert elsewhere.status_code == 400
    assert total < FIRST_LOAD_BYTES, f"the page's files are {total} bytes on the wire"


def _raw(http: httpx.Client, path: str) -> bytes:
    """The body as it came over the wire (httpx would inflate it)."""
    with http.stream("GET", path, headers={"accept-encoding": "gzip"}) as response:
        return b"".join(response.iter_raw())


def _first_load(driver: Any, url: str) -> dict[str, Any]:
    driver.get(url)
    wait_for(driver, ".game-card", seconds=30)
    wait_for(driver, ".tables h2", seconds=30)
    measured: dict[str, Any] = driver.execute_script(
        """
        const nav = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource');
        return {
          usable: window.__usable ?? null,
          bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
          requests: 1 + resources.length,
          names: resources.map((r) => r.name.replace(location.origin, '') + ' ' + r.transferSize),
        };
        """
    )
    return measured


def test_the_lobby_loads_in_under_100_kb_on_a_weak_wifi(web_url: str, tmp_path: Path) -> None:
    driver = browser(tmp_path / "profile", (390, 844))
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", WEAK_WIFI)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": USABLE_PROBE})
        first = _first_load(driver, web_url)
        print(f"first load at 1.6 Mbit/s and 150 ms: usable after {first['usable']:.0f} ms, {first['bytes']} bytes")
        assert first["bytes"] < FIRST_LOAD_BYTES, first
        # The page, its script and style sheet, and the lobby's two first calls; nothing else is fetched.
        assert first["requests"] <= 6, first
        assert first["usable"] is not None, "the lobby never became usable"
        # A second visit: every file revalidated by its ETag (no body), so only headers cross the air.
        second = _first_load(driver, web_url + "?again")
        print(f"second load: usable after {second['usable']:.0f} ms, {second['bytes']} bytes")
        assert second["bytes"] < 8_000, second
    finally:
        driver.quit()
