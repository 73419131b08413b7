"""The API contract's hygiene: proto/ passes `buf lint`, and `tools/buf/check` fails a change that breaks
the last release tag (tried in a scratch git repository with a tag of its own) while passing one that does
not. The buf binary comes from the pinned npm package (`npm ci --prefix tools/buf`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import ROOT

BUF = ROOT / "tools" / "buf" / "node_modules" / ".bin" / "buf"


def buf() -> str:
    assert BUF.exists(), "run `npm ci --prefix tools/buf`"
    return str(BUF)


def test_the_proto_files_pass_buf_lint() -> None:
    result = subprocess.run([buf(), "lint"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_check_passes_without_a_release_tag_and_says_it_skipped_the_breaking_check(tmp_path: Path) -> None:
    repo = _scratch_repository(tmp_path)
    result = subprocess.run(["tools/buf/check"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no release tag yet" in result.stdout


def test_the_check_fails_a_change_that_breaks_the_last_release_tag(tmp_path: Path) -> None:
    repo = _scratch_repository(tmp_path)
    _git(repo, "tag", "v0.1.0")
    service = repo / "proto" / "toadstool" / "v1" / "service.proto"
    source = service.read_text()

    # Adding a field is compatible.
    service.write_text(source.replace("  string seat_token = 2;\n", "  string seat_token = 2;\n  string hint = 99;\n"))
    compatible = subprocess.run(["tools/buf/check"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert compatible.returncode == 0, compatible.stdout + compatible.stderr
    assert "no breaking change since v0.1.0" in compatible.stdout

    # Renumbering a field breaks every client built from the released contract.
    service.write_text(source.replace("  string seat_token = 2;\n", "  string seat_token = 4;\n"))
    breaking = subprocess.run(["tools/buf/check"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert breaking.returncode != 0
    assert 'Previously present field "2" with name "seat_token" on message "JoinTableResponse"' in breaking.stdout


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=30,
    )


def _scratch_repository(tmp_path: Path) -> Path:
    """A git repository holding a copy of the contract, the buf config and the check script."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "proto", repo / "proto")
    shutil.copy(ROOT / "buf.yaml", repo / "buf.yaml")
    (repo / "tools" / "buf").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "buf" / "check", repo / "tools" / "buf" / "check")
    (repo / "tools" / "buf" / "node_modules").symlink_to(ROOT / "tools" / "buf" / "node_modules")
    _git(repo, "init", "-q")
    _git(repo, "add", "proto", "buf.yaml", "tools/buf/check")
    _git(repo, "commit", "-q", "-m", "contract")
    return repo
