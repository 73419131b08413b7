"""A Connect-protocol client for tests, over real HTTP (httpx): unary calls and Watch streams, JSON or binary.

Written from the protocol (connectrpc.com/docs/protocol), not from the server's adapter, so a test that uses
it checks the server against the protocol. Also a real headless Chromium for the web client's tests.
"""

from __future__ import annotations

import contextlib
import json
import re
import struct
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, TypeVar

import grpc
import httpx
from google.protobuf import json_format
from google.protobuf.message import Message

from conftest import TEST_LIMIT_FLAGS, start_serve, stop_process
from toadstool.api import SEAT_TOKEN_KEY
from toadstool.api.v1 import service_pb2, table_pb2

M = TypeVar("M", bound=Message)

PATH = "/toadstool.v1.ToadstoolService/"
#: Connect's code names back to gRPC's codes, to compare the two transports' refusals.
CODES = {code.name.lower(): code for code in grpc.StatusCode}
CODES["canceled"] = grpc.StatusCode.CANCELLED


class ConnectError(Exception):
    """A Connect call that ended in an error: the gRPC code it names, its message, the HTTP status."""

    def __init__(self, code: grpc.StatusCode, message: str, http_status: int) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.http_status = http_status


def _error(body: dict[str, Any], http_status: int) -> ConnectError:
    return ConnectError(CODES[body.get("code", "unknown")], body.get("message", ""), http_status)


def _headers(token: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    headers = {SEAT_TOKEN_KEY: token} if token else {}
    return {**headers, **(extra or {})}


class WebClient:
    """Calls the server's Connect API at `base` ("http://127.0.0.1:PORT")."""

    def __init__(self, base: str, codec: str = "json", timeout: float = 10.0) -> None:
        self.base = base
        self.codec = codec
        self.http = httpx.AsyncClient(base_url=base, timeout=timeout)

    async def __aenter__(self) -> WebClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    def _encode(self, request: Message) -> bytes:
        if self.codec == "json":
            return json_format.MessageToJson(request).encode()
        return request.SerializeToString()

    async def raw(self, method: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
        return await self.http.post(PATH + method, content=body, headers=headers)

    async def call(
        self,
        method: str,
        request: Message,
        response_type: type[M],
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> M:
        content_type = "application/json" if self.codec == "json" else "application/proto"
        response = await self.raw(
            method, self._encode(request), {"content-type": content_type, **_headers(token, headers)}
        )
        if response.status_code != 200:
            raise _error(response.json(), response.status_code)
        if self.codec == "json":
            return json_format.Parse(response.text, response_type())
        return response_type.FromString(response.content)

    async def watch(
        self, table_id: str, token: str | None = None, since: int | None = None
    ) -> AsyncIterator[service_pb2.WatchResponse]:
        """The Watch stream's messages as they arrive; raises ConnectError for the stream's end-of-stream error."""
        request = service_pb2.WatchRequest(table_id=table_id)
        if since is not None:
            request.since_version = since
        data = self._encode(request)
        headers = {"content-type": f"application/connect+{self.codec}", **_headers(token, None)}
        async with self.http.stream(
            "POST", PATH + "Watch", content=struct.pack(">BI", 0, len(data)) + data, headers=headers
        ) as response:
            if response.status_code != 200:
                raise _error(json.loads(await response.aread()), response.status_code)
            buffer = b""
            async for chunk in response.aiter_raw():
                buffer += chunk
                while len(buffer) >= 5:
                    flags, length = struct.unpack(">BI", buffer[:5])
                    if len(buffer) < 5 + length:
                        break
                    payload, buffer = buffer[5 : 5 + length], buffer[5 + length :]
                    if flags & 0x02:
                        end = json.loads(payload)
                        if "error" in end:
                            raise _error(end["error"], 200)
                        return
                    if self.codec == "json":
                        yield json_format.Parse(payload.decode(), service_pb2.WatchResponse())
                    else:
                        yield service_pb2.WatchResponse.FromString(payload)

    async def newest(self, table_id: str, token: str | None = None, since: int | None = None) -> table_pb2.Update:
        """The table's update as this token sees it now: the Watch stream's first update (a stream that
        starts after `since` carries that version's events)."""
        async for message in self.watch(table_id, token, since=since):
            if message.HasField("update"):
                return message.update
        raise AssertionError("the Watch stream ended without an update")


def create_table(url: str, request: service_pb2.CreateTableRequest) -> service_pb2.CreateTableResponse:
    """Create a table over the Connect API in JSON at the page's `url` (the lobby's form has no seed: tests
    that need one deal every run make their tables here)."""
    response = httpx.post(
        url.rstrip("/") + PATH + "CreateTable",
        content=json_format.MessageToJson(request),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return json_format.Parse(response.text, service_pb2.CreateTableResponse())


def get_table(url: str, table_id: str) -> table_pb2.TableInfo:
    """A table as GetTable answers it over the Connect API in JSON at the page's `url`."""
    response = httpx.post(
        url.rstrip("/") + PATH + "GetTable",
        content=json_format.MessageToJson(service_pb2.GetTableRequest(table_id=table_id)),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return json_format.Parse(response.text, service_pb2.GetTableResponse()).table


# --- A real headless Chromium (Debian's chromium + chromium-driver), driven with Selenium ---------------

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--password-store=basic",
)
PHONE = (360, 640)
LAPTOP = (1280, 800)


#: What `toadstool serve` prints once its web side listens, with the address it got (for --web-port 0).
WEB_LISTENING = re.compile(r"Web client listening on (\S+:\d+)")


@contextlib.contextmanager
def web_server(output: Path, bot_delay: float) -> Iterator[str]:
    """`toadstool serve` on loopback with its web side on a free port and bots `bot_delay` s apart; the
    page's URL while it runs (its output goes to `output`)."""
    process, _ = start_serve(
        "--no-db", "--no-announce", "--web-port", "0", "--bot-delay", str(bot_delay), *TEST_LIMIT_FLAGS, output=output
    )
    try:
        deadline = time.monotonic() + 10
        while not (found := WEB_LISTENING.search(output.read_text())):
            assert time.monotonic() < deadline, output.read_text()
            time.sleep(0.05)
        yield f"http://{found.group(1)}/"
    finally:
        stop_process(process)


def browser(profile: Path, size: tuple[int, int] = LAPTOP, language: str | None = None) -> Any:
    """A fresh Chromium with its own profile folder, its viewport exactly `size` (CSS pixels), speaking
    `language` ("de-DE": navigator.languages and every request's Accept-Language) when given. Selenium is
    given the driver's path, so Selenium Manager never looks for (or downloads) a browser."""
    import os

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    if language:
        options.add_argument(f"--lang={language}")
        base = language.split("-")[0]
        options.add_experimental_option("prefs", {"intl.accept_languages": f"{language},{base}"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    resize(driver, size)
    return driver


def resize(driver: Any, size: tuple[int, int]) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600},
    )


def screenshot(driver: Any, name: str) -> Path:
    """Save the page as test-output/web/NAME.png (the whole page, not just the viewport)."""
    folder = Path(__file__).resolve().parents[1] / "test-output" / "web"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# --- Reading and clicking the page, as a person would (bounded waits) ------------------------------------


def page_text(driver: Any) -> str:
    """Everything the page shows as text ("" while it is between pages)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        return str(driver.find_element(By.TAG_NAME, "body").text)
    except WebDriverException:
        return ""


def find(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def wait_for(driver: Any, selector: str, seconds: float = 10.0) -> Any:
    """The first element matching `selector`, waiting at most `seconds` for it (then the page's text fails it)."""
    deadline = time.monotonic() + seconds
    while not (found := find(driver, selector)):
        assert time.monotonic() < deadline, f"{selector!r} never appeared; the page says:\n{page_text(driver)}"
        time.sleep(0.05)
    return found[0]


def wait_gone(driver: Any, selector: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while find(driver, selector):
        assert time.monotonic() < deadline, f"{selector!r} never went away; the page says:\n{page_text(driver)}"
        time.sleep(0.05)


def click(driver: Any, selector: str, seconds: float = 10.0) -> None:
    """Click the first element matching `selector`, again if the page re-rendered it under the click."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + seconds
    while True:
        try:
            wait_for(driver, selector, seconds).click()
            return
        except StaleElementReferenceException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def tap(driver: Any, element: Any) -> None:
    """Scroll `element` to the middle of the screen, as a person would (the action bar sticks to the bottom
    of a phone's screen, over whatever is scrolled under it), then tap it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def type_into(driver: Any, selector: str, text: str) -> None:
    element = wait_for(driver, selector)
    element.clear()
    element.send_keys(text)


def text_of(driver: Any, selector: str, seconds: float = 10.0) -> str:
    """The text of the first element matching `selector`, read in one script (the page redraws on every
    update, so an element found a moment earlier may be gone); waits at most `seconds` for it."""
    deadline = time.monotonic() + seconds
    while True:
        text = driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : null", selector
        )
        if text is not None:
            return str(text)
        assert time.monotonic() < deadline, f"{selector!r} never appeared; the page says:\n{page_text(driver)}"
        time.sleep(0.05)


# --- What people see: the page's layout checked in the DOM ----------------------------------------------

#: The smallest tap target on a phone, in CSS pixels (Apple's and WCAG 2.5.5's 44 x 44).
TAP = 44
#: Containers that say nothing when they hold none of these: they must not be drawn empty.
MUST_HOLD = {
    ".board": "*",
    ".log": "li",
    ".actions": "button, .toggle",
    ".host": "button",
    ".seats": ".seat",
    ".display-roll": ".roll-die",
}
_LAYOUT_SCRIPT = """
const [tap, mustHold] = arguments;
const problems = [];
const visible = (e) => {
  const r = e.getBoundingClientRect();
  const style = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && style.visibility !== "hidden" && style.display !== "none";
};
const name = (e) => {
  const text = (e.innerText || e.getAttribute("aria-label") || e.value || "").trim().replace(/\\s+/g, " ").slice(0, 40);
  return `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} "${text}"`;
};
const width = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth > width + 1) {
  problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width}`);
}
for (const [selector, content] of Object.entries(mustHold)) {
  for (const e of document.querySelectorAll(selector)) {
    if (!visible(e)) continue;
    const held = [...e.querySelectorAll(content)].some(visible) || (content === "*" && e.innerText.trim());
    if (!held) problems.push(`an empty ${selector} is drawn`);
  }
}
// A box (a border or a background of its own) with no text and nothing visible inside it.
for (const e of document.querySelectorAll("#app div, #app section, #app ol, #app ul, #app li")) {
  if (!visible(e) || e.innerText.trim() || e.querySelector("input, select, button, img, svg, canvas")) continue;
  if ([...e.querySelectorAll("*")].some(visible)) continue;
  const style = getComputedStyle(e);
  const boxed = parseFloat(style.borderTopWidth) > 0 || style.backgroundColor !== "rgba(0, 0, 0, 0)";
  const r = e.getBoundingClientRect();
  const size = `${Math.round(r.width)}x${Math.round(r.height)}`;
  if (boxed && r.width >= 24 && r.height >= 24) problems.push(`an empty box ${name(e)} (${size})`);
}
const targets = [...document.querySelectorAll([
  "#app button", "#app a[href]", "#app select", "#app input:not([type=checkbox]):not([type=radio])",
  "#app label:has(input[type=checkbox])",
].join(", "))].filter(visible);
const rects = targets.map((e) => e.getBoundingClientRect());
targets.forEach((e, i) => {
  const r = rects[i];
  if (tap && (r.width < tap - 0.5 || r.height < tap - 0.5)) {
    problems.push(`a tap target under ${tap} px: ${name(e)} is ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  if (r.left < -0.5 || r.right > width + 0.5) problems.push(`a tap target cut off at the side: ${name(e)}`);
  for (let j = i + 1; j < targets.length; j++) {
    const o = rects[j];
    const x = Math.min(r.right, o.right) - Math.max(r.left, o.left);
    const y = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
    if (x > 0.5 && y > 0.5 && !e.contains(targets[j]) && !targets[j].contains(e)) {
      problems.push(`tap targets overlap: ${name(e)} and ${name(targets[j])}`);
    }
  }
});
// Text that does not fit its box (cut off or spilling out), in the table's own parts.
for (const e of document.querySelectorAll("#app button, #app .seat, #app .turn, #app .outcome, #app h1")) {
  if (!visible(e)) continue;
  const style = getComputedStyle(e);
  if (e.scrollWidth > e.clientWidth + 1 && style.overflowX !== "auto" && style.overflowX !== "scroll") {
    problems.push(`text does not fit: ${name(e)} (${e.scrollWidth} px in ${e.clientWidth})`);
  }
}
return problems;
"""


def layout_problems(driver: Any, phone: bool) -> list[str]:
    """What is wrong with the page as drawn now: empty boxes, tap targets that overlap or are cut off at the
    side, text that does not fit, a page that scrolls sideways; on a phone also tap targets under 44 x 44 px.

    Checked with the viewport as tall as the page, so that the sticky action bar sits where it belongs in
    the page's flow rather than over the board (at the phone's real height it covers the bottom of the
    board by design: it is always in reach)."""
    size = driver.execute_script("return [innerWidth, innerHeight]")
    tall = int(driver.execute_script("return document.documentElement.scrollHeight"))
    resize(driver, (int(size[0]), max(int(size[1]), tall)))
    try:
        return list(driver.execute_script(_LAYOUT_SCRIPT, TAP if phone else 0, MUST_HOLD))
    finally:
        resize(driver, (int(size[0]), int(size[1])))


#: States of a table worth a look the first time they show, by the selector that shows them.
STATES = {
    "two-step": ".actions .opened",
    "uno-call": ".uno-call",
    "uno-catch": ".uno .catch",
    "uno-challenge": ".uno .reveal, .uno .note",
    "powerup-challenge": ".powerup .pu-pending",
    "levelup-vote": ".levelup .lu-vote",
    "kart-aim": ".kart .aim, .kart .field.playable",
}


def new_states(driver: Any, seen: set[str]) -> list[str]:
    """The STATES the page shows now that are not in `seen` (added to it)."""
    fresh = [name for name, selector in STATES.items() if name not in seen and find(driver, selector)]
    seen.update(fresh)
    return fresh


def check_layout(driver: Any, where: str, shot: str | None = None) -> None:
    """Fail unless the page has no layout problem at the phone's size and at the laptop's (`layout_problems`);
    with `shot`, save it as test-output/web/SHOT-phone.png and SHOT-laptop.png too. The page is left at the
    phone's size."""
    phone = layout_problems(driver, phone=True)
    if shot:
        screenshot(driver, f"{shot}-phone")
    resize(driver, LAPTOP)
    try:
        laptop = layout_problems(driver, phone=False)
        if shot:
            screenshot(driver, f"{shot}-laptop")
    finally:
        resize(driver, PHONE)
    problems = [f"phone: {p}" for p in phone] + [f"laptop: {p}" for p in laptop]
    assert not problems, f"{where}:\n" + "\n".join(problems) + f"\n{page_text(driver)}"


# --- The lobby's new-table flow (lobby.ts): a game's card, then players and bots, the rest under More options


def choose_game(driver: Any, game: str) -> None:
    """Tap the game's card in the lobby and wait for its form (players, bots, More options)."""
    click(driver, f".game-card[data-game='{game}']")
    wait_for(driver, f".game-card.chosen[data-game='{game}']")
    wait_for(driver, "form.create-details input[name=players]")


def more_options(driver: Any) -> None:
    """Open the new-table form's "More options" (the game's options, the clocks, start by hand)."""
    if driver.execute_script("return document.querySelector('.more-fields')?.hidden ?? true"):
        click(driver, ".more-options .more-toggle")
    wait_for(driver, ".more-fields:not([hidden])")


def attribute_of(driver: Any, selector: str, name: str, seconds: float = 10.0) -> str:
    """An attribute of the first element matching `selector`, read in one script (the page may redraw it
    between finding and reading); waits at most `seconds` for it."""
    deadline = time.monotonic() + seconds
    while True:
        value = driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null",
            selector,
            name,
        )
        if value is not None:
            return str(value)
        assert time.monotonic() < deadline, f"{selector!r} never appeared; the page says:\n{page_text(driver)}"
        time.sleep(0.05)


def texts_of(driver: Any, selector: str) -> list[str]:
    """The texts of every element matching `selector`, read in one script."""
    found = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText)", selector
    )
    return [str(text) for text in found]
