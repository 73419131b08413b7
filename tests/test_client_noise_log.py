"""What a client alone can make grpcio log as an ERROR is kept out of the server's error log
(toadstool.server.hardening): a client that hangs up just as it is answered is not the server's fault. Any
other ERROR of grpcio's still reaches the log as it was."""

from __future__ import annotations

import logging

import pytest
from grpc._cython import cygrpc

from toadstool.server.hardening import quiet_client_garbage

GRPC_LOG = "grpc._cython.cygrpc"


def _log_as_grpcio(message: str, error: BaseException) -> None:
    """Log `message` with `error`'s traceback the way grpcio's `_handle_exceptions` does."""
    try:
        raise error
    except BaseException:
        logging.getLogger(GRPC_LOG).exception(message)


def test_a_response_that_could_not_be_sent_to_a_call_that_ended_is_not_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quiet_client_garbage()
    caplog.set_level(logging.INFO, logger=GRPC_LOG)
    # What the fuzz suite caught on a loaded machine, word for word: a garbled ListGames whose connection was
    # reset while the answer was being sent, before grpcio had handled the call's end.
    failed_send = cygrpc.ExecuteBatchError('Failed "execute_batch": (<SendMessageOperation>,)')
    _log_as_grpcio(
        "ExecuteBatchError raised in core by servicer method [/toadstool.v1.ToadstoolService/ListGames]", failed_send
    )
    assert [r for r in caplog.records if r.levelno >= logging.INFO] == []
    assert "Traceback" not in caplog.text
    # Anything else grpcio calls an error still is one, traceback and all.
    _log_as_grpcio(
        "Unexpected [KeyError] raised by servicer method [/toadstool.v1.ToadstoolService/Act]", KeyError("x")
    )
    (kept,) = caplog.records
    assert kept.levelno == logging.ERROR
    assert kept.exc_info is not None
    assert "Traceback" in caplog.text
    caplog.clear()  # logged on purpose: not an error of this test's (conftest fails a test on any ERROR)
