"""Install what you need (issue #18, item 5): `pip install toadstool` gives everything to host and play, the
MQTT bridge's libraries are the `bridge` extra, and the server's container image installs only what the
server needs (deploy/server-requirements.txt, then Toadstool with `--no-deps`).

Proved here without a container engine: the server list agrees with pyproject.toml and with what the server
imports, a fresh environment made by the image's own recipe hosts and plays every game, and `toadstool
bridge` without its extra says which extra to install instead of showing a traceback.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, stop_process, toadstool_command
from e2e_helpers import gather_players, play_randomly
from toadstool.api.v1 import table_pb2
from toadstool.games import GAMES
from toadstool_clients.connection import Client

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SERVER_REQUIREMENTS = ROOT / "deploy" / "server-requirements.txt"
#: Modules of the clients' and the bridge's dependencies, none of which the server may need (tkinter is part
#: of Python, but not of the slim image's).
CLIENT_ONLY = ("rich", "prompt_toolkit", "cryptography", "aiomqtt", "paho", "msgspec", "anyascii", "tkinter")
BRIDGE_ONLY = ("aiomqtt", "paho", "msgspec", "anyascii")


def _name(requirement: str) -> str:
    """The distribution a requirement names, normalised (PEP 503): "prompt_toolkit>=3" -> "prompt-toolkit"."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def _requirements(lines: list[str]) -> dict[str, str]:
    return {_name(line): line for line in lines}


def server_requirements() -> dict[str, str]:
    lines = [line.strip() for line in SERVER_REQUIREMENTS.read_text().splitlines()]
    return _requirements([line for line in lines if line and not line.startswith("#")])


def _imported_modules(path: Path, functions: tuple[str, ...] | None = None) -> set[str]:
    """The modules a file imports, absolute and by their dotted names (every import, or only those at module
    level and inside `functions`)."""
    tree = ast.parse(path.read_text())
    nodes: list[ast.AST] = [tree]
    if functions is not None:
        nodes = [n for n in tree.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        nodes += [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in functions]
    names: set[str] = set()
    for node in (inner for top in nodes for inner in ast.walk(top)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _distributions_of(module: str) -> set[str]:
    """The installed distributions that provide a module (for a namespace such as `google`, only those that
    hold the module's own files)."""
    candidates = importlib.metadata.packages_distributions().get(module.split(".")[0], [])
    if len(candidates) > 1:
        folder = module.replace(".", "/") + "/"
        files = {name: importlib.metadata.distribution(name).files or [] for name in candidates}
        candidates = [name for name in candidates if any(str(f).startswith(folder) for f in files[name])]
    assert candidates, f"no installed distribution provides {module}"
    return {_name(name) for name in candidates}


def test_the_bridge_and_the_benchmarks_are_extras_and_dev_has_them_all() -> None:
    core = _requirements(PYPROJECT["project"]["dependencies"])
    extras = {name: _requirements(lines) for name, lines in PYPROJECT["project"]["optional-dependencies"].items()}
    assert {"aiomqtt", "paho-mqtt", "msgspec", "anyascii"} <= set(extras["bridge"])
    assert {"rlcard", "matplotlib"} <= set(extras["bench"])
    assert not (set(extras["bridge"]) | set(extras["bench"])) & set(core)
    # Playing needs no extra: the terminal client, the Tk client (Tk is part of Python) and `toadstool cert`.
    assert {"rich", "prompt-toolkit", "cryptography"} <= set(core)
    assert "toadstool[test,bench,bridge]" in PYPROJECT["project"]["optional-dependencies"]["dev"]


def test_the_server_requirements_are_pyprojects_own_pins() -> None:
    core = _requirements(PYPROJECT["project"]["dependencies"])
    listed = server_requirements()
    assert listed, "deploy/server-requirements.txt lists nothing"
    for name, requirement in listed.items():
        assert core.get(name) == requirement, f"{requirement!r} is {core.get(name)!r} in pyproject.toml"


def test_the_server_requirements_are_exactly_what_the_server_imports() -> None:
    modules = set().union(*(_imported_modules(path) for path in (ROOT / "server" / "toadstool").rglob("*.py")))
    # (`toadstool serve` starts in cli.py, which imports nothing third-party at the top, then serve_command.)
    ours = {*sys.stdlib_module_names, "__future__", "toadstool", "toadstool_clients"}
    third_party = {module for module in modules if module.split(".")[0] not in ours}
    needed = set().union(*(_distributions_of(module) for module in third_party))
    assert needed == set(server_requirements())


def _copy_the_image_sources(destination: Path) -> None:
    """What the Containerfile's build stage copies into /src (its COPY lines, checked in test_deploy.py)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    (destination / "deploy").mkdir(parents=True)
    shutil.copy(SERVER_REQUIREMENTS, destination / "deploy")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, destination)
    for name in ("server", "clients"):
        shutil.copytree(ROOT / name, destination / name, ignore=ignore)


def _pip(python: Path, *args: str) -> None:
    """This environment's pip, installing into the environment of `python` (which has no pip of its own)."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", *args],
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def _blocking(directory: Path, modules: tuple[str, ...]) -> str:
    """A PYTHONPATH whose sitecustomize makes `modules` unimportable, as if they were not installed."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(
        f"import sys\nfor name in {modules!r}:\n    sys.modules[name] = None  # import raises ModuleNotFoundError\n"
    )
    return os.pathsep.join(filter(None, (str(directory), os.environ.get("PYTHONPATH"))))


def _healthcheck_code() -> str:
    """The code of the server image's HEALTHCHECK (`python -c CODE`)."""
    text = (ROOT / "deploy" / "Containerfile").read_text().replace("\\\n", " ")
    (line,) = (line for line in text.splitlines() if line.startswith("HEALTHCHECK "))
    command = json.loads(line.split(" CMD ", 1)[1])
    assert command[:2] == ["python", "-c"]
    return str(command[2])


async def _play_every_game(address: str) -> None:
    async with Client(address) as client:
        await client.wait_ready()
        listed = {game.name: game for game in await client.list_games()}
        folders = {path.name for path in (ROOT / "server" / "toadstool" / "games").iterdir() if path.is_dir()}
        assert set(listed) == folders - {"__pycache__"}
        players = []
        for seed, (name, game) in enumerate(sorted(listed.items())):
            created = await client.create_table(
                name, game.min_players, game.min_players - 1, dict(GAMES[name].engine.quick_options), seed=seed
            )
            table_id = created.table.table_id
            joined = await client.join(table_id, "Ann")
            players.append(play_randomly(address, table_id, joined.seat_token, joined.seat, seed=seed))
            players.append(play_randomly(address, table_id, None, None, seed=seed))
    for transcript in await gather_players(players, 120):
        assert transcript.last.status == table_pb2.TABLE_STATUS_FINISHED


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_server_image_recipe_hosts_and_plays_without_any_client_dependency(tmp_path: Path) -> None:
    # The image's recipe in a fresh environment: the server list, then Toadstool without its dependencies.
    sources, venv = tmp_path / "src", tmp_path / "venv"
    _copy_the_image_sources(sources)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    _pip(python, "-r", str(sources / "deploy" / "server-requirements.txt"))
    _pip(python, "--no-deps", str(sources))
    absent = subprocess.run(
        [python, "-c", f"import importlib.util as u; print([m for m in {CLIENT_ONLY!r} if u.find_spec(m)])"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # tkinter is part of this Python (not of the slim image's): the server must run without it all the same.
    assert absent.stdout.strip() in ("[]", "['tkinter']"), f"installed for the server: {absent.stdout}"
    _blocking(tmp_path / "site", CLIENT_ONLY)
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env |= {
        "PATH": f"{venv / 'bin'}:{env.get('PATH', '')}",
        "PYTHONPATH": str(tmp_path / "site"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    serve = [
        *("serve", "--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "toadstool.db"), "--no-announce"),
        *("--bot-delay", "0", "--min-bot-delay", "0", "--actions-per-second", "100000"),
    ]
    process = subprocess.Popen(
        [venv / "bin" / "toadstool", *serve], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        listening = re.search(r"listening on (127\.0\.0\.1:\d+)", first)
        assert listening, first + process.stdout.read()
        address = listening.group(1)
        # The image's health check, run as the image runs it: `python` on its PATH is the environment's.
        on_path = shutil.which("python", path=env["PATH"])
        assert on_path == str(python), on_path
        health = subprocess.run(
            [on_path, "-c", _healthcheck_code().replace("127.0.0.1:50051", address)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert health.returncode == 0, health.stderr
        asyncio.run(_play_every_game(address))
        # The bridge is not in the server's image: asked for, it says so.
        bridge = subprocess.run(
            [venv / "bin" / "toadstool", "bridge", "--server", address],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert bridge.returncode != 0
        assert "needs its extra: pip install 'toadstool[bridge]'" in bridge.stderr, bridge.stderr
    finally:
        stop_process(process)  # type: ignore[arg-type]  # a text-mode Popen stops the same way
    assert process.returncode == 0, process.stdout.read() if process.stdout else ""


@pytest.mark.parametrize("module", BRIDGE_ONLY)
@pytest.mark.parametrize("args", [("--server", "127.0.0.1:1", "--broker", "127.0.0.1:1"), ("--help",)])
def test_the_bridge_without_its_extra_says_which_extra_to_install(
    tmp_path: Path, module: str, args: tuple[str, ...]
) -> None:
    result = subprocess.run(
        toadstool_command("bridge", *args),
        env={**os.environ, "PYTHONPATH": _blocking(tmp_path, (module,)), "XDG_CONFIG_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    message = "toadstool: the MQTT bridge needs its extra: pip install 'toadstool[bridge]'"
    assert re.fullmatch(rf"{re.escape(message)} \(no module named '{module}(\.\w+)*'\)", result.stderr.strip())
    assert "Traceback" not in result.stdout + result.stderr
