"""The web client in German and English (issue #43, docs/design.md §11), in a real headless Chromium against
a real `toadstool serve`.

The client's own words come from its catalogues (clients/toadstool_clients/web/src/locales/en.ts, de.ts):
every English message has a German one with the same placeholders and the plural forms German uses (the
locales check, built by scripts/build-web). A Chromium whose language is German (`--lang=de-DE`, its
Accept-Language pref) gets the lobby, the new-table form, a table with the host's controls, the end of a
game and the TV in German: none of them shows an English word of the client's catalogue (the words both
languages share, and the games' names, left out). Texts that are the server's (event texts, phases, the
outcome's account: made German by the server's own catalogue) are not the client's and not counted here.
The lobby's language menu switches an English browser to German, is remembered after a reload, and sends
the choice to the server (its game titles come back German). At phone size (390x844) in German nothing
overflows sideways. Screenshots go to test-output/web/ (lang-*.png).
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    browser,
    click,
    create_table,
    find,
    get_table,
    layout_problems,
    resize,
    screenshot,
    type_into,
    wait_for,
    web_server,
)

from toadstool.api.v1 import service_pb2

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "clients" / "toadstool_clients" / "web"
PHONE = (390, 844)
LAPTOP = (1280, 800)
#: Names that read the same in both languages (games, characters, brands): never a sign of English.
SHARED_NAMES = {"toadstool", "uno", "mario", "super", "power", "kart", "level", "bros", "mega", "pow", "tv", "qr"}
#: The page's parts whose words are the server's texts that the English check below cannot judge: a
#: score is a number and the server's score label; phases, logs and summaries name the seats. (A game
#: option's label, its choices' labels and Power Up's ? cards are the server's words too, but said in the
#: reader's language: they stay in, checked against the server's English words as well.)
NOT_THE_CLIENTS = ", ".join(
    [
        *(".score", ".tv-score-unit", ".phase", ".log", ".summary", ".how-it-went"),
        *(".tv-final", ".tv-summary", ".tv-events"),
    ]
)
#: The page's text and every aria-label, placeholder and title, with the server's parts left out.
PAGE_WORDS = f"""
const copy = document.body.cloneNode(true);
copy.querySelectorAll({NOT_THE_CLIENTS!r}).forEach((e) => e.remove());
copy.querySelectorAll('script, style, #announcer').forEach((e) => e.remove());
const said = [...copy.querySelectorAll('[aria-label], [placeholder], [title]')].flatMap((e) =>
  [e.getAttribute('aria-label'), e.getAttribute('placeholder'), e.getAttribute('title')]);
document.body.appendChild(copy);
copy.style.position = 'absolute';
const text = copy.innerText;
copy.remove();
return [text, ...said.filter(Boolean)].join('\\n');
"""


#: The bytes this page's first load took on the wire, and what they were.
FIRST_LOAD = """
const nav = performance.getEntriesByType('navigation')[0];
const resources = performance.getEntriesByType('resource');
return [nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
        resources.map((r) => r.name.replace(location.origin, '') + ' ' + r.transferSize)];
"""


def _catalogue_words(name: str) -> set[str]:
    """Every word of the catalogue's messages (placeholders left out), lower case."""
    source = (WEB / "src" / "locales" / f"{name}.ts").read_text(encoding="utf-8")
    messages = re.findall(r'(?m)^\s*(?:"[\w.]+":\s*|\w+:\s*)"((?:[^"\\]|\\.)*)"', source)
    words: set[str] = set()
    for message in messages:
        words |= {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß']{3,}", re.sub(r"\{\w+\}", " ", message))}
    return words


def _server_words() -> tuple[set[str], set[str]]:
    """The words of the server's catalogue: its English messages' and their German translations'."""
    from babel.messages.pofile import read_po

    path = ROOT / "server" / "toadstool" / "locale" / "de" / "LC_MESSAGES" / "toadstool.po"
    with path.open("rb") as po:
        catalogue = read_po(po)
    english: set[str] = set()
    german: set[str] = set()
    for message in catalogue:
        for text, into in ((message.id, english), (message.string, german)):
            for part in text if isinstance(text, tuple) else (text,):
                into |= {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß']{3,}", re.sub(r"\{\w+\}", " ", part))}
    return english, german


SERVER_ENGLISH, SERVER_GERMAN = _server_words()
#: Words only English says: the client's catalogues' and the server's, each less its own German words.
CLIENT_GERMAN = _catalogue_words("de") | _catalogue_words("boards.de")
ENGLISH = ((_catalogue_words("en") | _catalogue_words("boards.en")) - CLIENT_GERMAN) | (
    SERVER_ENGLISH - SERVER_GERMAN - CLIENT_GERMAN
)
ENGLISH -= SHARED_NAMES


def _english_in(driver: Any) -> set[str]:
    """The English catalogue's words on the page, less those of the server's own game titles (said by the
    server's catalogue: a test game's title is English only) and Kart's track title (the track file's name)."""
    script = "return [...document.querySelectorAll('.game-title, .infield-title')].map((e) => e.textContent)"
    titles = " ".join(driver.execute_script(script))
    theirs = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß']{3,}", titles)}
    text = str(driver.execute_script(PAGE_WORDS))
    return {w for w in re.findall(r"[A-Za-zÄÖÜäöüß']{3,}", text) if w.lower() in ENGLISH - theirs}


def _wait_text(driver: Any, selector: str, want: str, seconds: float = 20, prefix: bool = False) -> None:
    """Wait (bounded) until the first `selector` reads `want` (or, with `prefix`, begins with it; a reload
    draws the page anew)."""
    deadline = time.monotonic() + seconds
    script = "const e = document.querySelector(arguments[0]); return e ? e.textContent : null"
    while not ((said := driver.execute_script(script, selector)) == want or (prefix and (said or "").startswith(want))):
        assert time.monotonic() < deadline, f"{selector} reads {said!r}, not {want!r}"
        time.sleep(0.05)


def _no_sideways_scroll(driver: Any) -> None:
    """Nothing overflows sideways: the page, and (web_helpers.layout_problems) no button's or heading's text
    spills out of its box, no tap target is cut off or overlaps another, on a phone none is under 44 px."""
    width, inner = driver.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"the page is {width} px wide in {inner}"
    assert not layout_problems(driver, phone=inner < 600), layout_problems(driver, phone=inner < 600)


@pytest.fixture
def web_url(tmp_path: Path) -> Iterator[str]:
    with web_server(tmp_path / "serve.log", bot_delay=0.05) as url:
        yield url


def test_every_english_message_has_a_german_one_with_the_same_placeholders() -> None:
    built = WEB / "build" / "locales_check.mjs"
    made = subprocess.run([str(ROOT / "scripts" / "build-web")], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    result = subprocess.run(["node", str(built)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok "), result.stdout
    # The word list the browser tests look for is a real one (the catalogue's English, less shared words).
    assert {"table", "seat", "watch", "host", "players", "turn"} <= ENGLISH, sorted(ENGLISH)[:40]


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_german_browser_gets_the_lobby_form_table_end_and_tv_in_german(
    web_url: str, tmp_path: Path, size: tuple[int, int]
) -> None:
    tag = "phone" if size == PHONE else "laptop"
    driver = browser(tmp_path / "profile", size, language="de-DE")
    try:
        driver.get(web_url)
        assert driver.execute_script("return navigator.languages[0]").startswith("de")
        wait_for(driver, ".game-card")
        wait_for(driver, ".tables h2")
        assert driver.execute_script("return document.documentElement.lang") == "de"
        assert driver.find_element("css selector", ".tables h2").text == "Tische"
        # The server answers the client's call in German too: Kart's title is the German one.
        assert "Super Mario Kart (Brettspiel)" in driver.find_element("css selector", ".game-cards").text
        assert not _english_in(driver), _english_in(driver)
        _no_sideways_scroll(driver)
        # German costs no more than English on a weak Wi-Fi: its catalogue replaces no byte of the page's, and
        # the first load with it stays under test_web_weight's 100 KB (the boards' and rules' words come later).
        loaded = driver.execute_script(FIRST_LOAD)
        assert loaded[0] < 100_000, loaded
        screenshot(driver, f"lang-de-lobby-{tag}")

        # The new-table form, all of it open.
        type_into(driver, "#name", "Anna")
        click(driver, ".game-card[data-game='uno']")
        wait_for(driver, ".create-details")
        click(driver, ".more-toggle")
        assert not _english_in(driver), _english_in(driver)
        _no_sideways_scroll(driver)
        screenshot(driver, f"lang-de-form-{tag}")

        # The table, waiting for players, with the host's controls and the invite.
        click(driver, ".create-button")
        wait_for(driver, ".table-screen .host .host-control", seconds=20)
        wait_for(driver, ".waiting-invite")
        assert "Du bist Gastgeber dieses Tisches" in driver.find_element("css selector", ".host h2").text
        assert not _english_in(driver), _english_in(driver)
        _no_sideways_scroll(driver)
        screenshot(driver, f"lang-de-table-{tag}")

        # The end of a game (a quick one of bots, watched) and its podium on the TV.
        request = service_pb2.CreateTableRequest(game="uno", players=3, bots=3, seed=5, name="Abend", bot_delay_ms=0)
        request.options.update({"target": "1"})
        table_id = create_table(web_url, request).table.table_id
        driver.get(f"{web_url}#/t/{table_id}/watch")
        wait_for(driver, ".outcome .ranking", seconds=60)
        assert not _english_in(driver), _english_in(driver)
        _no_sideways_scroll(driver)
        screenshot(driver, f"lang-de-end-{tag}")
        driver.get(f"{web_url}#/t/{table_id}/tv")
        wait_for(driver, ".tv-podium .podium .place-1", seconds=30)
        assert not _english_in(driver), _english_in(driver)
        screenshot(driver, f"lang-de-tv-podium-{tag}")
        driver.get(f"{web_url}#/tv")
        wait_for(driver, ".tv-waiting, .tv-podium", seconds=30)
        assert not _english_in(driver), _english_in(driver)
    finally:
        driver.quit()


def test_the_language_menu_switches_the_lobby_and_is_remembered(web_url: str, tmp_path: Path) -> None:
    driver = browser(tmp_path / "profile", PHONE, language="en-US")
    try:
        driver.get(web_url)
        wait_for(driver, ".game-card")
        assert driver.find_element("css selector", ".tables h2").text == "Tables"
        assert driver.execute_script("return document.documentElement.lang") == "en"
        assert "Super Mario Kart (board game)" in driver.find_element("css selector", ".game-cards").text
        driver.execute_script(
            "const s = document.getElementById('language'); s.value = 'de'; s.dispatchEvent(new Event('change'))"
        )
        _wait_text(driver, ".tables h2", "Tische")
        assert driver.execute_script("return document.documentElement.lang") == "de"
        # The choice goes to the server with each call: its game titles come back German.
        wait_for(driver, ".game-card")
        _wait_text(driver, ".game-card[data-game='kart'] .game-title", "Super Mario Kart (Brettspiel)")
        assert "Super Mario Kart (Brettspiel)" in driver.find_element("css selector", ".game-cards").text
        assert not _english_in(driver), _english_in(driver)
        driver.refresh()
        _wait_text(driver, ".tables h2", "Tische")
        assert driver.find_element("css selector", "#language").get_attribute("value") == "de"
        # The seat's socket carries the choice too (a browser cannot set its headers): the host's own table,
        # watched over it, says the server's phase in German though the browser asks for English.
        type_into(driver, "#name", "Anna")
        click(driver, ".game-card[data-game='uno']")
        wait_for(driver, ".create-details")
        click(driver, ".create-button")
        wait_for(driver, ".table-screen .host .host-control", seconds=20)
        _wait_text(driver, ".table-screen .phase", "Warten auf Spieler", prefix=True)
        driver.get(web_url)
        wait_for(driver, ".game-card")
        # And back.
        driver.execute_script(
            "const s = document.getElementById('language'); s.value = 'en'; s.dispatchEvent(new Event('change'))"
        )
        _wait_text(driver, ".tables h2", "Tables")
        assert find(driver, "#language option[value='de']")[0].text == "Deutsch"
        resize(driver, PHONE)
    finally:
        driver.quit()


@pytest.mark.parametrize("game", ["uno", "powerup", "levelup", "kart"])
def test_each_games_board_in_german_at_phone_size(web_url: str, tmp_path: Path, game: str) -> None:
    """A game in play, watched from a German phone: its board's words are German, nothing overflows."""
    request = service_pb2.CreateTableRequest(game=game, players=3, bots=3, seed=7, name="Abend", bot_delay_ms=300)
    table_id = create_table(web_url, request).table.table_id
    driver = browser(tmp_path / "profile", PHONE, language="de-DE")
    try:
        driver.get(f"{web_url}#/t/{table_id}/watch")
        wait_for(driver, ".board section", seconds=30)
        english = _english_in(driver)
        assert not english, english
        _no_sideways_scroll(driver)
        screenshot(driver, f"lang-de-board-{game}-phone")
    finally:
        driver.quit()


def test_a_games_options_are_labelled_in_german_and_send_their_values(web_url: str, tmp_path: Path) -> None:
    """The server's option labels and choice labels (a track's title) in the form, in German; the value the
    form sends is the choice's id."""
    driver = browser(tmp_path / "profile", PHONE, language="de-DE")
    try:
        driver.get(web_url)
        type_into(driver, "#name", "Anna")
        click(driver, ".game-card[data-game='kart']")
        wait_for(driver, ".create-details")
        click(driver, ".more-toggle")
        wait_for(driver, ".option-name")
        assert "Strecke" in [e.text for e in find(driver, ".option-name")]
        choices = {e.get_attribute("value"): e.text for e in find(driver, "select[name='track'] option")}
        assert choices["mushroom-loop"] == "Pilz-Rundkurs"
        assert choices["mini-loop"] == "Mini-Rundkurs"
        assert not _english_in(driver), _english_in(driver)
        _no_sideways_scroll(driver)
        driver.execute_script("document.querySelector('.option-name').scrollIntoView({block: 'center'})")
        screenshot(driver, "lang-de-form-kart-phone")
        driver.execute_script(
            "const s = document.querySelector(\"select[name='track']\"); s.value = 'mini-loop';"
            "s.dispatchEvent(new Event('change'))"
        )
        click(driver, ".create-button")
        wait_for(driver, ".table-screen .host .host-control", seconds=20)
        table_id = driver.execute_script("return location.hash").split("/")[2]
        assert get_table(web_url, table_id).options["track"] == "mini-loop"
    finally:
        driver.quit()


def test_the_log_of_a_german_page_in_an_english_browser_names_the_viewer_as_the_server_says(
    web_url: str, tmp_path: Path
) -> None:
    """The page rewrites its viewer's own events into "You ..." in English only: with German chosen on the
    menu of an English browser, the socket's events are German and stay as the server wrote them (no "You
    zieht ...")."""
    request = service_pb2.CreateTableRequest(game="uno", players=2, bots=1, seed=7, name="Abend", bot_delay_ms=300)
    table_id = create_table(web_url, request).table.table_id
    driver = browser(tmp_path / "profile", PHONE, language="en-US")
    try:
        driver.get(web_url)
        wait_for(driver, ".game-card")
        driver.execute_script(
            "const s = document.getElementById('language'); s.value = 'de'; s.dispatchEvent(new Event('change'))"
        )
        _wait_text(driver, ".tables h2", "Tische")
        type_into(driver, "#name", "Anna")
        click(driver, f"li.table-item[data-table='{table_id}'] button.join")
        wait_for(driver, ".table-screen .log li", seconds=30)
        deadline = time.monotonic() + 30
        while not any(line.startswith("Anna ") for line in _log_lines(driver)):
            assert time.monotonic() < deadline, _log_lines(driver)
            time.sleep(0.1)
        assert not [line for line in _log_lines(driver) if line.startswith("You")], _log_lines(driver)
    finally:
        driver.quit()


def _log_lines(driver: Any) -> list[str]:
    script = "return [...document.querySelectorAll('.table-screen .log li')].map((e) => e.textContent.trim())"
    return list(driver.execute_script(script))
