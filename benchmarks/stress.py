"""``make stress``: the hardening harnesses at full count (crash kills, fuzzing, provider faults)."""

from __future__ import annotations

import importlib
import sys

HARNESSES = ("stress_crash", "stress_fuzz", "stress_faults", "stress_runaway")


def main() -> int:
    print("# OkBot stress harnesses")
    for name in HARNESSES:
        module = importlib.import_module(f"benchmarks.{name}")
        print(module.run())
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
