"""Server reflection in both versions a tool may ask for: `grpc.reflection.v1` and `grpc.reflection.v1alpha`.

grpcurl, Postman and newer grpcio tools ask v1 first; grpcio-reflection (1.85) only ships v1alpha. The two
protocols are the same messages under another package name (field numbers and types match), so v1 is served
by the same servicer with v1alpha's message classes doing the wire work, and a v1 copy of the reflection
file is added to the descriptor pool so that v1 itself can be listed and described.

Not for: health or the game service (server.py adds them).
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Put grpc/reflection/v1/reflection.proto into `pool`, made from v1alpha's file by renaming its package."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    v1alpha.DESCRIPTOR.CopyToProto(file)
    alpha = f".{file.package}."
    file.name, file.package = V1_FILE, V1_PACKAGE
    file.ClearField("options")
    for message in file.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(alpha, f".{V1_PACKAGE}.")
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(alpha, f".{V1_PACKAGE}.")
            method.output_type = method.output_type.replace(alpha, f".{V1_PACKAGE}.")
    pool.Add(file)


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1 and v1alpha on `server`, listing `service_names` and both reflection services."""
    _add_v1_descriptor(descriptor_pool.Default())
    names = (*service_names, V1_SERVICE, reflection.SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)
    info = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=v1alpha.ServerReflectionRequest.FromString,
        response_serializer=v1alpha.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1_SERVICE, {"ServerReflectionInfo": info}),))
