"""How long a test waits for an event it expects: long enough that a loaded 2-core machine (eight test runs
at once) never turns a slow pass into a failure. A wait returns as soon as its event happens, so a passing
test is no slower for it; only a failing one waits this long before it says so."""

from __future__ import annotations

PATIENT_SECONDS = 60.0
PATIENT_MS = int(PATIENT_SECONDS * 1000)
