"""Scheduled jobs: a message sent to an assistant or squad at its times (no Qt; the app's scheduler runs them).

- :mod:`~okbot.core.schedules.rules` -- once / every N minutes / hourly / daily at HH:MM / cron, the next run;
- :mod:`~okbot.core.schedules.job` -- one job as its file keeps it;
- :mod:`~okbot.core.schedules.store` -- a target's ``schedules.json``.
"""
