"""Running the gRPC server: the listening socket, reflection, health, limits and graceful shutdown.

`serve` is `toadstool serve`; `running_server` is the same server embedded in another program (the
`toadstool play` command and the tests), bound to loopback on a free port.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from toadstool.service import ToadstoolService
from toadstool.tables import TableRegistry
from toadstool.v1 import service_pb2, service_pb2_grpc

log = logging.getLogger(__name__)

SERVICE_NAME = service_pb2.DESCRIPTOR.services_by_name["ToadstoolService"].full_name
#: Requests larger than this are refused with RESOURCE_EXHAUSTED before any code of ours runs.
MAX_REQUEST_BYTES = 64 * 1024


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 50051
    bot_delay: float = 0.6
    max_tables: int = 1000
    grace: float = 3.0


@dataclass
class RunningServer:
    """A started server: its bound address and its tables."""

    server: grpc.aio.Server
    registry: TableRegistry
    host: str
    port: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@contextlib.asynccontextmanager
async def running_server(config: ServerConfig) -> AsyncIterator[RunningServer]:
    """Start the server, yield it, and stop it gracefully (watchers are told by their stream ending)."""
    registry = TableRegistry(bot_delay=config.bot_delay, max_tables=config.max_tables)
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    service_pb2_grpc.add_ToadstoolServiceServicer_to_server(ToadstoolService(registry), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(f"{config.host}:{config.port}")
    if port == 0:
        raise OSError(f"cannot listen on {config.host}:{config.port} (is another server using it?)")
    await server.start()
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    try:
        async with registry:
            yield RunningServer(server=server, registry=registry, host=config.host, port=port)
    finally:
        await health_servicer.enter_graceful_shutdown()
        await server.stop(config.grace)


async def serve(config: ServerConfig) -> None:
    """Run until SIGINT or SIGTERM, then shut down gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with running_server(config) as running:
        log.info("Toadstool serving on %s", running.address)
        print(f"Toadstool server listening on {running.address} (Ctrl+C to stop)", flush=True)
        await stop.wait()
        print("Shutting down…", flush=True)
