"""The table server: the tables and their registry (`tables/`), the durable log (`store`), the one module
that turns views into messages (`messages`, with `wire`), and the gRPC transport around them (`service`,
`listener`, `hardening`, `reflection`, `limits`, `discovery`), put together by `app`.

Nothing is re-exported here, so that importing the domain (`toadstool.server.tables`) never loads gRPC:
import `toadstool.server.app` for `serve`, `running_server`, `RunningServer` and `ServerConfig`.
"""
