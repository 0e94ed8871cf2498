"""The mock model's server says nothing when a client hangs up, and still reports its own faults."""

from __future__ import annotations

import pytest

from wrapper.mock.server import MockModel


def _fails(model: MockModel, error: BaseException) -> None:
    try:
        raise error
    except BaseException:
        model.server.handle_error(None, ("127.0.0.1", 1))


@pytest.mark.parametrize("error", [ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe")])
def test_a_client_that_hangs_up_prints_nothing(error: BaseException, capsys: pytest.CaptureFixture[str]) -> None:
    model = MockModel()
    try:
        _fails(model, error)
    finally:
        model.server.server_close()
    assert capsys.readouterr().err == ""


def test_a_fault_of_the_mock_is_still_reported(capsys: pytest.CaptureFixture[str]) -> None:
    model = MockModel()
    try:
        _fails(model, KeyError("scenario"))
    finally:
        model.server.server_close()
    assert "KeyError" in capsys.readouterr().err
