"""The MQTT bridge: a spectator client of the public gRPC API that mirrors public table state to MQTT.

It is for LED dice, score and turn displays and Home Assistant. It is not part of the server: the server
neither imports it nor waits on it, and everything it publishes comes from spectator updates (the public
view). `toadstool bridge --help` lists its options; docs/mqtt.md lists its topics and payloads.
"""
