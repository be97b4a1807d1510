"""One turn of a chat: the request a front-end makes, the runner that answers it, its rounds, its tools and the
squad members it asks.

- :mod:`~okbot.core.turn.request`: what a turn is asked to do (:class:`Send`, :class:`Retry`, :class:`Edit`,
  :class:`Regenerate`);
- :mod:`~okbot.core.turn.outcome`: how it reports (:class:`TurnCallbacks`) and what it did (:class:`TurnResult`);
- :mod:`~okbot.core.turn.env`: what it runs against (sources, provider, compression, clock);
- :mod:`~okbot.core.turn.runner`: the loop; :mod:`~okbot.core.turn.rounds`: one request on its way out;
  :mod:`~okbot.core.turn.stream`: one streamed reply; :mod:`~okbot.core.turn.runtime`: tools and members at work;
  :mod:`~okbot.core.turn.dangling`: calls an earlier turn left open.
"""
