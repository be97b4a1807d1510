"""The application layer (no Qt): :class:`~okbot.app.app.OkBotApp` owns what lives as long as OkBot runs and
offers the use cases every front-end calls — the desktop, the command line and, later, the web.

A front-end builds one ``OkBotApp`` over a workspace and its settings, asks it for turns (a
:class:`~okbot.core.turn.request.TurnRequest`), versions, compressions and context views, and shows the
answers its own way; it never wires the core's parts together itself.
"""

from okbot.app.app import OkBotApp

__all__ = ["OkBotApp"]
