"""Everything in deploy/ checked by what can run here: the systemd units verified and rated by
systemd-analyze (in a scratch root, so nothing is installed on this machine), the Containerfile linted by
hadolint, its two images (the server's, the bridge's) read stage by stage and its health check run against
a real server (tests/test_extras.py runs the server image's install recipe), the compose file and the
Kubernetes manifest validated against their published schemas, the Mosquitto config loaded by a real
broker, and every `toadstool` option they use accepted by the real command line. Nothing is booted (no
systemd as PID 1, no container engine, no cluster here).
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from conftest import ROOT, free_port, toadstool_command
from toadstool.server.app import RunningServer

DEPLOY = ROOT / "deploy"
UNITS = ("toadstool.service", "toadstool-bridge.service")
TOOLS = Path(sys.executable).parent


def tool(name: str) -> str:
    """A tool from this virtual environment (hadolint, check-jsonschema) or from PATH (systemd-analyze)."""
    found = shutil.which(name, path=f"{TOOLS}:/usr/sbin:/usr/bin:/sbin:/bin")
    assert found, f"{name} is not installed (CI installs it: see .ci/run)"
    return found


def unit_settings(name: str) -> dict[str, list[str]]:
    """The settings of a unit file, by key, in order (keys may repeat), with continuation lines joined."""
    settings: dict[str, list[str]] = {}
    text = (DEPLOY / "systemd" / name).read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


@pytest.fixture(scope="module")
def scratch_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file system root holding systemd's own units, ours, and a stand-in for /opt/toadstool/bin/toadstool
    (systemd-analyze checks that ExecStart= names an executable; the real one is installed at deploy time)."""
    root = tmp_path_factory.mktemp("root")
    for system_units in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")):
        if system_units.is_dir():
            shutil.copytree(system_units, root / "usr/lib/systemd/system", symlinks=True, dirs_exist_ok=True)
            break
    executable = root / "opt/toadstool/bin/toadstool"
    executable.parent.mkdir(parents=True)
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    (root / "etc/systemd/system").mkdir(parents=True)
    for unit in UNITS:
        shutil.copy(DEPLOY / "systemd" / unit, root / "etc/systemd/system" / unit)
    return root


def test_the_systemd_units_verify_without_a_single_warning(scratch_root: Path) -> None:
    result = subprocess.run(
        [tool("systemd-analyze"), "verify", f"--root={scratch_root}", *UNITS],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_runs_as_a_dedicated_user_with_state_restarts_and_hardening(scratch_root: Path, unit: str) -> None:
    settings = unit_settings(unit)
    assert settings["DynamicUser"] == ["yes"]
    assert settings["StateDirectory"]
    assert settings["Restart"] == ["on-failure"]
    for key in ("NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices", "RestrictSUIDSGID"):
        assert settings[key] == ["yes"], key
    assert settings["ProtectSystem"] == ["strict"]
    assert settings["CapabilityBoundingSet"] == [""]
    assert "AF_PACKET" not in settings["RestrictAddressFamilies"][0]
    rating = subprocess.run(
        [tool("systemd-analyze"), "security", "--offline=yes", f"--root={scratch_root}", "--threshold=20", unit],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert rating.returncode == 0, rating.stdout[-2000:] + rating.stderr
    assert re.search(rf"Overall exposure level for {re.escape(unit)}: [01]\.\d OK", rating.stdout)


def test_the_server_unit_keeps_its_database_in_its_state_directory() -> None:
    settings = unit_settings("toadstool.service")
    command = shlex.split(settings["ExecStart"][0])
    assert command[:2] == ["/opt/toadstool/bin/toadstool", "serve"]
    database = command[command.index("--db") + 1]
    assert database == f"/var/lib/{settings['StateDirectory'][0]}/toadstool.db"


def test_the_containerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [tool("hadolint"), "--no-color", str(DEPLOY / "Containerfile")], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def containerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """The Containerfile's stages in order, by name: each its instructions as (INSTRUCTION, arguments), with
    continuation lines joined."""
    stages: dict[str, list[tuple[str, str]]] = {}
    text = (DEPLOY / "Containerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        instruction, _, arguments = line.partition(" ")
        if instruction == "FROM":
            stages[arguments.split(" AS ")[-1] if " AS " in arguments else str(len(stages))] = []
        assert stages, "the Containerfile does not start with FROM"
        stages[list(stages)[-1]].append((instruction, " ".join(arguments.split())))
    return stages


def containerfile_instruction(name: str, stage: str = "server") -> str:
    """The arguments of the last `name` instruction of a stage (default: the server's)."""
    matches = [arguments for instruction, arguments in containerfile_stages()[stage] if instruction == name]
    assert matches, f"no {name} in the Containerfile's {stage} stage"
    return matches[-1]


def test_the_default_image_is_the_server_and_the_bridge_has_a_target_of_its_own() -> None:
    stages = containerfile_stages()
    assert list(stages)[-1] == "server", "the last stage is what a plain `podman build` makes"
    assert json.loads(containerfile_instruction("CMD", "server"))[0] == "serve"
    assert containerfile_instruction("EXPOSE", "server") == "50051"
    assert json.loads(containerfile_instruction("CMD", "bridge"))[0] == "bridge"
    for stage in ("server", "bridge"):
        assert stages[stage][0] == ("FROM", "runtime AS " + stage)
    assert containerfile_instruction("USER", "runtime") == "10001:10001"
    # The bridge serves nothing: no port, no state, no server health check.
    assert not {"EXPOSE", "VOLUME", "HEALTHCHECK"} & {instruction for instruction, _ in stages["bridge"]}


def _environment_stage(stage: str) -> list[tuple[str, str]]:
    """The instructions that made the /opt/toadstool a stage copies, through the stages it builds on."""
    copied = containerfile_instruction("COPY", stage)
    assert copied.endswith(" /opt/toadstool /opt/toadstool"), copied
    stages = containerfile_stages()
    name = copied.split()[0].removeprefix("--from=")
    instructions: list[tuple[str, str]] = []
    while name in stages:
        (_, base), *rest = stages[name]
        instructions = rest + instructions
        name = base.split(" AS ")[0]
    return instructions


def test_the_server_image_installs_only_the_server_requirements_and_toadstool_without_its_dependencies() -> None:
    built = _environment_stage("server")
    installs = [i for _, arguments in built for i in re.findall(r"pip install (.*?)(?: &&|$)", arguments)]
    assert installs == [
        "--no-cache-dir -r deploy/server-requirements.txt",
        "--no-cache-dir --no-deps .",
    ]
    # What the build copies to /src: exactly what tests/test_extras.py installs in a fresh environment.
    copies = [arguments for instruction, arguments in built if instruction == "COPY"]
    assert copies == [
        "deploy/server-requirements.txt ./deploy/",
        "pyproject.toml README.md ./",
        "server ./server",
        "clients ./clients",
    ]


def test_the_bridge_image_adds_the_bridge_extra() -> None:
    built = _environment_stage("bridge")
    installs = [i for _, arguments in built for i in re.findall(r"pip install (.*?)(?: &&|$)", arguments)]
    assert installs[-1] == "--no-cache-dir '.[bridge]'"


async def test_the_image_health_check_passes_for_a_serving_server_and_fails_without_one(
    server: RunningServer,
) -> None:
    check = json.loads(containerfile_instruction("HEALTHCHECK").split(" CMD ", 1)[1])
    assert check[:2] == ["python", "-c"]
    code = check[2]
    assert "127.0.0.1:50051" in code

    async def run(address: str) -> int:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code.replace("127.0.0.1:50051", address), stderr=asyncio.subprocess.DEVNULL
        )
        return await asyncio.wait_for(process.wait(), 30)

    assert await run(server.address) == 0
    assert await run(f"127.0.0.1:{free_port()}") != 0


def compose() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_the_compose_file_follows_the_compose_specification() -> None:
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(DEPLOY / "compose.yaml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compose_services_find_each_other_and_their_files() -> None:
    services = compose()["services"]
    assert set(services) == {"server", "bridge", "mosquitto"}
    for name in ("server", "bridge"):
        build = services[name]["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Containerfile"
        assert build["target"] == name
        assert name in containerfile_stages()
    assert services["bridge"]["image"] != services["server"]["image"]
    bridge = services["bridge"]["command"]
    server_host, server_port = bridge[bridge.index("--server") + 1].split(":")
    broker_host, broker_port = bridge[bridge.index("--broker") + 1].split(":")
    assert server_host == "server"
    assert f"{server_port}:{server_port}" in services["server"]["ports"]
    assert broker_host == "mosquitto"
    assert f"{broker_port}:{broker_port}" in services["mosquitto"]["ports"]
    assert set(services["bridge"]["depends_on"]) == {"server", "mosquitto"}
    mounts = [volume.split(":") for volume in services["mosquitto"]["volumes"]]
    config = next(source for source, target, *_ in mounts if target == "/mosquitto/config/mosquitto.conf")
    assert (DEPLOY / config).is_file()
    named = {source for source, *_ in (v.split(":") for s in services.values() for v in s.get("volumes", []))}
    assert {name for name in named if not name.startswith(".")} == set(compose()["volumes"])


def test_the_mosquitto_config_starts_a_real_broker(tmp_path: Path) -> None:
    port = free_port()
    config = (DEPLOY / "mosquitto.conf").read_text()
    assert "listener 1883" in config
    assert "persistence_location /mosquitto/data/" in config
    (tmp_path / "data").mkdir()
    local = config.replace("listener 1883", f"listener {port} 127.0.0.1").replace(
        "persistence_location /mosquitto/data/", f"persistence_location {tmp_path / 'data'}/"
    )
    (tmp_path / "mosquitto.conf").write_text(local)
    mosquitto = shutil.which("mosquitto", path="/usr/sbin:/usr/bin:/sbin")
    assert mosquitto, "mosquitto is not installed (CI installs it)"
    broker = subprocess.Popen(
        [mosquitto, "-c", str(tmp_path / "mosquitto.conf")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            assert broker.poll() is None, broker.communicate()[0].decode()
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    # An MQTT 3.1.1 CONNECT without credentials must be accepted (CONNACK, return code 0).
                    sock.sendall(bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 10, 0, 0]))
                    assert sock.recv(4) == bytes([0x20, 2, 0, 0])
                    break
            assert time.monotonic() < deadline, "the broker did not listen"
            time.sleep(0.05)
    finally:
        broker.terminate()
        broker.wait(10)


def kubernetes_documents() -> list[dict[str, Any]]:
    documents = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text()) if d]
    assert all(isinstance(d, dict) for d in documents)
    return documents


@pytest.mark.parametrize("version", ["1.30.0", kubernetes_validate.latest_version()])
def test_the_kubernetes_manifest_validates_against_the_kubernetes_schemas(version: str) -> None:
    documents = kubernetes_documents()
    assert sorted(d["kind"] for d in documents) == ["Deployment", "PersistentVolumeClaim", "Service"]
    for document in documents:
        kubernetes_validate.validate(document, version, strict=True)


def test_the_kubernetes_objects_refer_to_each_other_correctly() -> None:
    by_kind = {d["kind"]: d for d in kubernetes_documents()}
    deployment, service, claim = by_kind["Deployment"], by_kind["Service"], by_kind["PersistentVolumeClaim"]
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["type"] == "Recreate"
    labels = pod["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    (container,) = pod["spec"]["containers"]
    assert container["image"] == compose()["services"]["server"]["image"], "the server's image"
    port_names = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert {port["targetPort"] for port in service["spec"]["ports"]} <= set(port_names)
    volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
    claims = {v["persistentVolumeClaim"]["claimName"] for v in volumes.values() if "persistentVolumeClaim" in v}
    assert claims == {claim["metadata"]["name"]}
    mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
    database = container["args"][container["args"].index("--db") + 1]
    state_volume = volumes[mounts[str(Path(database).parent)]]
    assert "persistentVolumeClaim" in state_volume
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


def command_lines() -> list[tuple[str, list[str]]]:
    """Every `toadstool` command line that deploy/ runs, as (where, arguments after `toadstool`)."""
    lines: list[tuple[str, list[str]]] = []
    for unit in UNITS:
        command = shlex.split(unit_settings(unit)["ExecStart"][0])
        lines.append((unit, [arg for arg in command[1:] if not arg.startswith("$")]))
    for line in (
        unit_settings("toadstool.service")["Environment"] + unit_settings("toadstool-bridge.service")["Environment"]
    ):
        for assignment in shlex.split(line):
            name, _, value = assignment.partition("=")
            if name.endswith("_ARGS") and value:
                lines.append((name, [name.split("_")[1].lower(), *shlex.split(value)]))
    for stage in ("server", "bridge"):
        lines.append((f"Containerfile {stage} CMD", json.loads(containerfile_instruction("CMD", stage))))
    for name, service in compose()["services"].items():
        if "command" in service:
            lines.append((f"compose {name}", service["command"]))
    for document in kubernetes_documents():
        if document["kind"] == "Deployment":
            for container in document["spec"]["template"]["spec"]["containers"]:
                lines.append((f"kubernetes {container['name']}", container["args"]))
    return lines


def test_every_toadstool_option_used_in_deploy_exists() -> None:
    lines = command_lines()
    assert {args[0] for _, args in lines} == {"serve", "bridge"}
    helps: dict[str, str] = {}
    for where, args in lines:
        if args[0] not in helps:
            result = subprocess.run(
                toadstool_command(args[0], "--help"), capture_output=True, text=True, timeout=60, check=True
            )
            helps[args[0]] = result.stdout
        for option in (arg for arg in args[1:] if arg.startswith("--")):
            assert re.search(rf"(^|[\s\[,]){re.escape(option)}\b", helps[args[0]]), f"{where}: unknown {option}"


def test_the_readme_explains_every_file_in_deploy() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for path in sorted(DEPLOY.rglob("*")):
        if path.is_file() and path.name != "README.md":
            assert f"`{path.relative_to(DEPLOY)}`" in readme, path
