"""The project's documents stay citable: no file cites a document that is not in the repository (the
direction's DESIGN.md, the rulings' RULINGS.md, the printed rule texts), every "docs/rules/<game>.md §N"
and "docs/design.md §N / principle N" a file cites exists, and docs/benchmarks.md stays a short document.

Read from the tracked files themselves, so a citation that points nowhere fails here with its file and line,
before a contributor goes looking for a section that is not there.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES = DOCS / "rules"
DESIGN = DOCS / "design.md"
BENCHMARKS = DOCS / "benchmarks.md"
#: docs/benchmarks.md keeps the method, the current figures and what changed them; rounds live in git.
MAX_BENCHMARK_LINES = 400

#: A citation of a document outside the repository: the direction (DESIGN.md), the rulings (RULINGS.md, also
#: quoted as "RULINGS:" or "RULINGS section N") or the printed rule texts they were written from (uno.txt...).
OUTSIDE = re.compile(r"\bDESIGN\.md\b|\bRULINGS\b|\b(?:uno|kart\.de|level-up|power-up)\.txt\b")
#: Between a cited file and its section: spaces, a comma, and what a comment's line break leaves (#, //, *).
_GAP = r"[\s,#/*]*"
_SECTION = r"§\s*(\d+(?:\.\d+)*)"
_MORE = r"((?:\s*(?:,|and|or|to)\s*§\s*\d+(?:\.\d+)*)*)"
RULE_CITATION = re.compile(r"docs/rules/([\w-]+)\.md" + _GAP + _SECTION + _MORE)
DESIGN_SECTION = re.compile(r"docs/design\.md" + _GAP + _SECTION + _MORE)
DESIGN_PRINCIPLE = re.compile(r"docs/design\.md" + _GAP + r"principles?\s+(\d+)((?:\s*(?:,|and|or)\s*\d+)*)")
#: A citation of this repository's docs/ (not a path inside another site's address, such as AWTRIX's docs/api.md).
CITED_DOC = re.compile(r"(?<![/\w.-])docs/([\w/-]+\.md)\b")
HEADING = re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
PRINCIPLE = re.compile(r"^(\d+)\.\s+\*\*", re.MULTILINE)


def tracked_files() -> list[Path]:
    """Every text file git tracks (what a clone holds), this test excepted: it names the patterns."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = []
    for name in listed.decode().split("\0"):
        path = ROOT / name
        if not name or path == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def sections(text: str) -> set[str]:
    """The numbers of a document's numbered headings ("## 3. A turn" -> "3", "### 3.2 The deal" -> "3.2")."""
    return set(HEADING.findall(text))


def principles(text: str) -> set[int]:
    """The numbers of the design's principles: the numbered bold items of its section "Principles"."""
    start = text.index("Principles")
    end = text.find("\n## ", start)
    return {int(n) for n in PRINCIPLE.findall(text[start : end if end > 0 else None])}


def _numbers(first: str, more: str) -> list[str]:
    return [first, *re.findall(r"\d+(?:\.\d+)*", more)]


def broken_citations(text: str, rule_sections: dict[str, set[str]], design: str) -> list[str]:
    """Every citation in `text` of a rules section, design section or design principle that does not exist."""
    known_design, known_principles = sections(design), principles(design)
    wrong = []
    for match in RULE_CITATION.finditer(text):
        game, numbers = match.group(1), _numbers(match.group(2), match.group(3))
        wrong += [f"docs/rules/{game}.md §{n}" for n in numbers if n not in rule_sections.get(game, set())]
    for match in DESIGN_SECTION.finditer(text):
        wrong += [f"docs/design.md §{n}" for n in _numbers(match.group(1), match.group(2)) if n not in known_design]
    for match in DESIGN_PRINCIPLE.finditer(text):
        numbers = _numbers(match.group(1), match.group(2))
        wrong += [f"docs/design.md, principle {n}" for n in numbers if int(n) not in known_principles]
    return wrong


def _rule_sections() -> dict[str, set[str]]:
    return {path.stem: sections(path.read_text()) for path in RULES.glob("*.md")}


def test_no_file_cites_a_document_that_is_not_in_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
        for path in tracked_files()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not found, "cite docs/design.md or docs/rules/<game>.md instead:\n" + "\n".join(found)


def test_every_cited_rules_section_and_design_principle_exists() -> None:
    rule_sections, design = _rule_sections(), DESIGN.read_text()
    wrong = [
        f"{path.relative_to(ROOT)}: {citation}"
        for path in tracked_files()
        for citation in broken_citations(path.read_text(), rule_sections, design)
    ]
    assert not wrong, "cited, but no such section or principle:\n" + "\n".join(wrong)


def test_every_cited_document_under_docs_exists() -> None:
    missing = sorted(
        {
            f"{path.relative_to(ROOT)}: docs/{name}"
            for path in tracked_files()
            for name in CITED_DOC.findall(path.read_text())
            if not (DOCS / name).is_file()
        }
    )
    assert not missing, "cited, but not in docs/:\n" + "\n".join(missing)


def test_each_game_has_its_rules_and_the_design_numbers_its_principles() -> None:
    games = {path.name for path in (ROOT / "server" / "toadstool" / "games").iterdir() if (path / "engine.py").exists()}
    assert games <= {path.stem for path in RULES.glob("*.md")}, "a game without docs/rules/<key>.md"
    assert principles(DESIGN.read_text()) == set(range(1, len(principles(DESIGN.read_text())) + 1))
    assert "Hand-made parts and why" in DESIGN.read_text()


def test_benchmarks_stay_under_the_line_limit() -> None:
    lines = len(BENCHMARKS.read_text().splitlines())
    assert lines <= MAX_BENCHMARK_LINES, f"docs/benchmarks.md has {lines} lines: keep rounds in git history"


RULES_DOC = "## 1. One\n### 1.1 Two\n### 1.2 Three\n## 2. Four\n"
DESIGN_DOC = "## 1. Shape\n## 5. Principles\n\n1. **One.** a\n2. **Two.** b\n\n## 6. Next\n"


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("docs/rules/uno.md §1.2 and docs/design.md, principle 2", []),
        ("(docs/rules/uno.md §1.1, §2)", []),
        ("docs/rules/uno.md §1.3", ["docs/rules/uno.md §1.3"]),
        ("docs/rules/uno.md §1.1 and §3", ["docs/rules/uno.md §3"]),
        ("# docs/rules/uno.md\n# §9", ["docs/rules/uno.md §9"]),
        ("docs/rules/kart.md §1", ["docs/rules/kart.md §1"]),
        ("docs/design.md, principle 3", ["docs/design.md, principle 3"]),
        ("docs/design.md §5 and docs/design.md §4", ["docs/design.md §4"]),
    ],
)
def test_a_citation_of_a_missing_section_or_principle_is_found(text: str, wrong: list[str]) -> None:
    assert broken_citations(text, {"uno": sections(RULES_DOC)}, DESIGN_DOC) == wrong


@pytest.mark.parametrize(
    "line",
    [
        "(DESIGN.md principle 4)",
        'RULINGS: "7 cards each"',
        "RULINGS.md section 2",
        "(RULINGS 3: ...)",
        'uno.txt: "must draw 6 cards"',
        "worked examples (kart.de.txt)",
    ],
)
def test_each_way_the_outside_documents_were_cited_is_caught(line: str) -> None:
    assert OUTSIDE.search(line)


def test_words_that_merely_contain_the_names_are_not_citations() -> None:
    assert not OUTSIDE.search("the rulings of the design document, DESIGNS and RULINGSX")
