"""``make bench``: run every benchmark and print its tables."""

from __future__ import annotations

import sys

from benchmarks import (
    bench_ahead,
    bench_core,
    bench_evolution,
    bench_fidelity,
    bench_mcp,
    bench_memory,
    bench_runner,
    bench_search,
    bench_ui,
    bench_versions,
)


def main() -> int:
    print("# OkBot benchmarks")
    print(bench_core.run())
    print(bench_runner.run())
    print(bench_ahead.run())
    print(bench_fidelity.run())
    print(bench_memory.run())
    print(bench_evolution.run())
    print(bench_ui.run())
    print(bench_versions.run())
    print(bench_mcp.run())
    print(bench_search.run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
