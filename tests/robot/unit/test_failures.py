"""A suite fails when an RT component failed that no test failed on purpose
(RtCellLibrary: RT Components Should Not Have Failed, RT Service Should Be Running)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libraries"))
import RtCellLibrary as lib  # noqa: E402
import session  # noqa: E402

CAUSE = {"exception_class": "java.lang.IllegalStateException", "message": "sensor gone", "task": "process",
         "release": 42, "frames": ["a.B.c(B.java:1)"]}
SERVICES = [
    {"name": "cochlear/ProcessingService", "state": "FAILED", "failure": CAUSE},
    {"name": "cochlear/ProcessingService/process", "state": "FAILED", "failure": CAUSE},
    {"name": "cochlear/Ui", "state": "RUNNING", "failure": None},
    {"name": "echo/Echo", "state": "RUNNING", "failure": None},
]


class Services(lib.RtCellLibrary):
    """The library reading a given status instead of asking a board (the CLI is tested on its own)."""

    def __init__(self, services):
        super().__init__()
        self.services = services

    def rt_services(self):
        return self.services

    def board_status(self):
        return {"cells": {"rt": {"alive": True}}}


@pytest.fixture(autouse=True)
def fresh_session():
    session.SESSION.failing_on_purpose.clear()  # one Robot run's state: none between tests
    yield
    session.SESSION.failing_on_purpose.clear()


def test_a_failed_component_fails_the_check_with_its_cause():
    library = Services(SERVICES)
    library.board = "host"
    with pytest.raises(AssertionError) as e:
        library.rt_components_should_not_have_failed()
    assert str(e.value) == ("RT component(s) failed: cochlear/ProcessingService: java.lang.IllegalStateException: "
                            "sensor gone (task process, release 42) at a.B.c(B.java:1)")


def test_a_component_failed_on_purpose_does_not():
    library = Services(SERVICES)
    library.board = "host"
    library.rt_component_fails_on_purpose("cochlear/ProcessingService")
    library.rt_components_should_not_have_failed()


def test_a_failed_state_without_a_cause_still_fails():
    library = Services([{"name": "old/Agent", "state": "FAILED"}])
    library.board = "host"
    with pytest.raises(AssertionError, match="old/Agent: unknown cause"):
        library.rt_components_should_not_have_failed()


def test_running_means_not_failed():
    library = Services(SERVICES)
    library.rt_service_should_be_running("echo")
    with pytest.raises(AssertionError, match="cochlear/ProcessingService: java.lang.IllegalStateException"):
        library.rt_service_should_be_running("cochlear")
    with pytest.raises(AssertionError, match="no running RT service 'nothing'"):
        library.rt_service_should_be_running("nothing")
