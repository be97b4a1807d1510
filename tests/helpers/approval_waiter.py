"""A process whose turn waits for approval until it is killed: ``python -m tests.helpers.approval_waiter TEXT``.

It sends TEXT to the default assistant of the data dir in OKBOT_HOME (settings as stored: the test points them
at its fake server), prints ``ASKED <tool>`` when the turn asks to approve a call, and then waits for an answer
that never comes, as OkBot does while its card is on show, until the test kills it.
"""

from __future__ import annotations

import sys
import threading

from okbot.app.app import OkBotApp
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace


def main(text: str) -> int:
    workspace = Workspace()
    target = workspace.ensure_default()
    app = OkBotApp(workspace, background=False)

    def ask(name: str, _args: dict) -> bool:
        print(f"ASKED {name}", flush=True)
        threading.Event().wait()  # the card is on show; the user never answers here
        return False

    app.run_turn(target, Send(text), callbacks=TurnCallbacks(ask_approval=ask))
    return 1  # never reached: the test kills this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
