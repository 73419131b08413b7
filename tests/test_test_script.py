"""The test command itself: `scripts/test` installs what is missing, stops before any test (and says what to
install) where it cannot, skips what is already installed and hands pytest its arguments and exit status;
and the guard in conftest.py stops every process a failed or timed-out test left running.

The script runs in a scratch copy of the repository whose every program (apt-get, npm, pip, pytest, ruff,
...) is a stub that writes its command line to a log, so nothing is installed and no suite runs inside the
suite. The guard is tried on a small test file run by a pytest of its own, under this suite's conftest.py.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

NPM_DIRS = ("examples/node", "tools/buf", "clients/toadstool_clients/web", "bench/peers")
#: The programs scripts/test looks for on PATH (mosquitto also in /usr/sbin), as stubs that do nothing.
SYSTEM_PROGRAMS = (
    "mosquitto",
    "Xvfb",
    "xdotool",
    "xwd",
    "systemd-analyze",
    "ip",
    "git",
    "chromium",
    "chromedriver",
    "tmux",
    "strace",
    "protoc",
    "valgrind",
)


class Checkout:
    """A scratch copy of the parts of the repository scripts/test reads, with a PATH of stubs."""

    def __init__(self, root: Path) -> None:
        self.root = root / "repo"
        self.bin = root / "bin"
        self.log = root / "log"
        self.log.touch()
        for relative in ("scripts/test", "pyproject.toml", *(f"{d}/package-lock.json" for d in NPM_DIRS)):
            (self.root / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / relative, self.root / relative)
        self.bin.mkdir()
        for name in ("env", "sha256sum", "mkdir", "cp", "true"):  # the real programs the script and the stubs need
            real = shutil.which(name)
            assert real, f"{name} is not installed"
            (self.bin / name).symlink_to(real)
        for name in SYSTEM_PROGRAMS:
            self.stub(self.bin / name)
        self.stub(self.bin / "import", 'echo "Version: ImageMagick 6.9.11-60 Q16"')
        self.stub(self.bin / "node")
        self.stub(self.bin / "id", 'echo "${FAKE_UID:-0}"')  # as `id -u`
        # npm ci makes the node_modules folder of its --prefix.
        self.stub(
            self.bin / "npm",
            'while [ $# -gt 0 ]; do if [ "$1" = --prefix ]; then mkdir -p "$2/node_modules"; fi; shift; done',
        )
        self.stub(self.bin / "apt-get")
        venv_bin = self.root / ".venv" / "bin"
        venv_bin.mkdir(parents=True)
        self.stub(venv_bin / "python")  # `python -c ''` (it works), `-c 'import tkinter'`, `-m pip install`
        for name in ("ruff", "mypy"):
            self.stub(venv_bin / name)
        self.stub(venv_bin / "pytest", 'exit "${FAKE_PYTEST_EXIT:-0}"')
        self.stub(self.root / "scripts" / "gen-proto")
        self.stub(self.root / "scripts" / "i18n")
        self.stub(self.root / "tools" / "buf" / "check")

    def stub(self, path: Path, body: str = "") -> None:
        """A program that appends its name and arguments to the log, runs `body`, and fails if told to."""
        name = path.name if path.parent.name != "buf" else "buf-check"
        path.write_text(
            "#!/bin/sh\n"
            f'echo "{name} $*" >> {shlex.quote(str(self.log))}\n'
            f'if [ "${{FAKE_FAIL:-}}" = {name} ]; then exit 1; fi\n'
            f"{body}\n"
        )
        path.chmod(0o755)

    def remove(self, *names: str) -> None:
        for name in names:
            (self.bin / name).unlink()

    def mark_installed(self) -> None:
        """The stamps a finished install leaves: .venv and both node_modules match their inputs."""
        self.run("--no-checks", "--collect-only")
        self.log.write_text("")

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        bash = shutil.which("bash")
        assert bash
        return subprocess.run(
            [bash, str(self.root / "scripts" / "test"), *args],
            env={"PATH": str(self.bin), "HOME": str(self.root), **env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def ran(self) -> list[str]:
        """The stubbed commands that ran, in order, leaving out the script's probes of what is installed."""
        probes = ("python -c", "id ", "node ", "import -version")
        return [line.strip() for line in self.log.read_text().splitlines() if not line.startswith(probes)]


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    return Checkout(tmp_path)


INSTALL = [
    "python -m pip install -q --upgrade pip",
    "python -m pip install -q -e .[dev]",
    "npm ci --prefix examples/node --no-audit --no-fund --silent",
    "npm ci --prefix tools/buf --no-audit --no-fund --silent",
    "npm ci --prefix clients/toadstool_clients/web --no-audit --no-fund --silent",
    "npm ci --prefix bench/peers --no-audit --no-fund --silent",
]
CHECKS = ["gen-proto --check", "i18n --check", "buf-check", "ruff check .", "ruff format --check .", "mypy"]


def test_a_missing_program_it_cannot_install_stops_it_before_any_test_naming_the_package(
    checkout: Checkout,
) -> None:
    checkout.mark_installed()
    checkout.remove("Xvfb")
    result = checkout.run("tests/test_tk.py", FAKE_UID="1000")  # not root, and there is no sudo
    assert result.returncode == 10, result.stdout + result.stderr
    assert "not root, and no sudo" in result.stdout
    assert re.search(r"\n  xvfb +Xvfb: the X server the Tk client tests open their windows on\n", result.stdout)
    assert "sudo apt-get install xvfb\n" in result.stdout
    assert "nothing was tested" in result.stdout
    assert checkout.ran() == [], "nothing was installed, checked or tested"


def test_without_apt_get_it_names_every_missing_package_and_runs_nothing(checkout: Checkout) -> None:
    checkout.remove("apt-get", "Xvfb", "node", "import")
    result = checkout.run()
    assert result.returncode == 10, result.stdout + result.stderr
    assert "there is no apt-get on this machine" in result.stdout
    assert "sudo apt-get install xvfb imagemagick nodejs\n" in result.stdout
    assert "xorg-x11-server-Xvfb" in result.stdout, "a hint for systems without apt-get"
    assert checkout.ran() == []


def test_without_python_or_its_environment_it_names_the_python_packages(checkout: Checkout) -> None:
    (checkout.root / ".venv" / "bin" / "python").unlink()  # no environment yet, and no python3 on PATH
    result = checkout.run(FAKE_UID="1000")
    assert result.returncode == 10, result.stdout + result.stderr
    assert "sudo apt-get install python3 python3-venv python3-tk\n" in result.stdout
    assert checkout.ran() == []


def test_check_only_says_what_is_missing_or_stale_and_installs_nothing(checkout: Checkout) -> None:
    checkout.remove("xdotool")
    result = checkout.run("--check-only")
    assert result.returncode == 10, result.stdout + result.stderr
    assert "xdotool" in result.stdout
    assert "scripts/test would install them: apt-get install xdotool" in result.stdout
    assert ".venv: out of date" in result.stdout
    assert "examples/node/node_modules: out of date" in result.stdout
    assert checkout.ran() == []


def test_check_only_passes_when_everything_is_installed(checkout: Checkout) -> None:
    checkout.mark_installed()
    result = checkout.run("--check-only", FAKE_UID="1000")
    assert (result.returncode, result.stderr) == (0, "")
    assert "everything the tests need is installed" in result.stdout
    assert checkout.ran() == []


@pytest.mark.parametrize("as_who", ["root", "sudo"])
def test_it_installs_what_is_missing_then_runs_the_checks_and_pytest_with_its_arguments(
    checkout: Checkout, as_who: str
) -> None:
    checkout.remove("Xvfb")
    # apt-get "installs" Xvfb; sudo runs its command (`sudo -n true` passes: no password needed).
    checkout.stub(
        checkout.bin / "apt-get", f'if [ "$1" = install ]; then cp {checkout.bin}/xdotool {checkout.bin}/Xvfb; fi'
    )
    env = {}
    apt = ["apt-get update -qq", "apt-get install -y -qq xvfb"]
    if as_who == "sudo":
        checkout.stub(checkout.bin / "sudo", 'if [ "$1" = -n ]; then shift; fi; exec "$@"')
        env["FAKE_UID"] = "1000"
        apt = [
            "sudo -n true",
            *(line for command in apt for line in (f"sudo env DEBIAN_FRONTEND=noninteractive {command}", command)),
        ]
    result = checkout.run("tests/test_cli.py", "-x", **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "installing Debian packages: xvfb" in result.stdout
    assert checkout.ran() == [*apt, *INSTALL, *CHECKS, "pytest -n 3 --dist loadgroup tests/test_cli.py -x"]


def test_a_second_run_installs_nothing_and_exits_with_pytests_status(checkout: Checkout) -> None:
    checkout.mark_installed()
    result = checkout.run("-k", "nothing matches this", FAKE_PYTEST_EXIT="5")
    assert result.returncode == 5, "pytest's 'no tests collected' is not hidden"
    assert checkout.ran() == [*CHECKS, "pytest -n 3 --dist loadgroup -k nothing matches this"]


def test_a_changed_input_reinstalls_only_what_depends_on_it(checkout: Checkout) -> None:
    checkout.mark_installed()
    lock = checkout.root / "tools" / "buf" / "package-lock.json"
    lock.write_text(lock.read_text() + "\n")
    assert checkout.run("--no-checks").returncode == 0
    assert checkout.ran() == ["npm ci --prefix tools/buf --no-audit --no-fund --silent", "pytest -n 3 --dist loadgroup"]
    checkout.log.write_text("")
    pyproject = checkout.root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n")
    assert checkout.run("--no-checks").returncode == 0
    assert checkout.ran() == [*INSTALL[:2], "pytest -n 3 --dist loadgroup"]


def test_a_failing_check_stops_it_before_pytest(checkout: Checkout) -> None:
    checkout.mark_installed()
    result = checkout.run(FAKE_FAIL="ruff")
    assert result.returncode == 1
    assert checkout.ran() == [*CHECKS[:4]]


def test_ci_and_the_readme_run_the_same_script() -> None:
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()
    assert "```sh\nbash scripts/test\n```" in (ROOT / "README.md").read_text()


# --- The process guard ---------------------------------------------------------------------------------

LEAKY_TESTS = """
import os
import subprocess
import time

import pytest

def running(seconds):
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{{name}}/cmdline", "rb") as f:
                if f.read().split(b"\\0")[:2] == [b"sleep", seconds.encode()]:
                    found.append(name)
        except OSError:
            pass
    return found

subprocess.Popen(["sleep", "{collected}"])  # while collecting: stopped at the end of the session

@pytest.fixture(scope="session")
def long_lived():
    subprocess.Popen(["sleep", "{session}"])  # no finalizer: it runs until the end of the session
    yield

def test_a_session_fixture_starts_a_process(long_lived):
    pass

def test_that_fails_with_processes_running():
    subprocess.Popen(["sleep", "{child}"])
    subprocess.Popen(["sleep", "{own_session}"], start_new_session=True)
    subprocess.run(["sh", "-c", "sleep {orphan} & exit 0"], check=True)  # the sleep outlives its parent
    assert False, "this test fails"

def test_that_times_out_with_a_process_running():
    subprocess.Popen(["sleep", "{timed_out}"])
    time.sleep(60)

def test_the_session_fixtures_process_outlives_the_tests_in_between(long_lived):
    assert running("{session}")
    if "PYTEST_XDIST_WORKER" not in os.environ:  # (under xdist, the tests above may be running right now)
        assert not any(running(s) for s in ("{child}", "{own_session}", "{orphan}", "{timed_out}")), "swept"
"""


#: The conftest.py of the small run: this suite's own, loaded from where it is (so its paths hold).
CONFTEST = """
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("suite_conftest", {path!r})
suite = importlib.util.module_from_spec(spec)
sys.modules["suite_conftest"] = suite
spec.loader.exec_module(suite)
globals().update({{name: value for name, value in vars(suite).items() if not name.startswith("__")}})
"""


def _running(seconds: str) -> list[int]:
    """The live processes whose command line is exactly `sleep SECONDS`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            command = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")[:2]
        except OSError:
            continue
        if command == [b"sleep", seconds.encode()]:
            found.append(int(name))
    return found


def _run_leaky_tests(tmp_path: Path, guard: str, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run LEAKY_TESTS laid out as this suite is: in tests/, below the root, beside this suite's conftest."""
    nonce = secrets.randbelow(10**9)
    roles = ("collected", "session", "child", "own_session", "orphan", "timed_out")
    sleeps = {role: f"{600 + n}.{nonce}" for n, role in enumerate(roles)}
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST.format(path=str(ROOT / "tests" / "conftest.py")))
    (tmp_path / "tests" / "test_leaky.py").write_text(LEAKY_TESTS.format(**sleeps))
    env = {**os.environ, "TOADSTOOL_PROCESS_GUARD": guard, "PYTEST_ADDOPTS": ""}
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--timeout", "3", *args, "tests/test_leaky.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result, sleeps


def _kill(pids: list[int]) -> None:
    """Kill them, wait until they have exited, and reap those that ended up as this process's children."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                stat = Path(f"/proc/{pid}/stat").read_bytes()
            except OSError:
                break
            if stat[stat.rindex(b")") + 2 :].split()[0] in (b"Z", b"X"):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                break
            time.sleep(0.02)


@pytest.mark.parametrize("workers", ["-p no:xdist", "-n 2"])
def test_the_guard_stops_what_a_failed_or_timed_out_test_left_running(tmp_path: Path, workers: str) -> None:
    result, sleeps = _run_leaky_tests(tmp_path, "1", *workers.split())
    left = {role: _running(seconds) for role, seconds in sleeps.items()}
    _kill([pid for pids in left.values() for pid in pids])
    assert "2 failed, 2 passed" in result.stdout, result.stdout + result.stderr
    assert "Timeout" in result.stdout
    assert {role: pids for role, pids in left.items() if pids} == {}
    assert "processes the test left running (stopped)" in result.stdout
    assert f"sleep {sleeps['orphan']}" in result.stdout, "the orphaned grandchild was found too"


def test_without_the_guard_the_same_tests_leave_their_processes_running(tmp_path: Path) -> None:
    """The control: it is the guard that stops them, not the tests' own ending."""
    result, sleeps = _run_leaky_tests(tmp_path, "0", "-p", "no:xdist")
    left = {role: _running(seconds) for role, seconds in sleeps.items()}
    _kill([pid for pids in left.values() for pid in pids])
    assert "3 failed, 1 passed" in result.stdout, result.stdout + result.stderr
    assert "AssertionError: swept" in result.stdout
    assert {role for role, pids in left.items() if pids} == set(sleeps)
