"""Toadstool's clients: the `toadstool` command, the terminal client, the Tk client and the MQTT bridge.

All of them are clients of the public v1 gRPC API and know no game rules: they render views and offer
the legal actions each view carries.
"""
