# OkBot developer tasks. GNU make; needs only `python3 -m venv` on a fresh machine.
#
#   make run     install (if needed) and launch the GUI
#   make test    install the test extra (if needed) and run the whole suite offscreen, slow tests last
#   make bench   install (if needed) and run the benchmarks
#   make bench-agentic  one long turn of tool rounds over files, 8k and 16k windows (BASE_URL/MODEL: a real model)
#   make bench-strategies  OkBot beside the peers' context strategies, probes scored (BASE_URL/MODEL: a real model)
#   make stress  the hardening harnesses: crash kills, fuzzing, provider faults (figures)
#   make lint    ruff: the code is laid out by ruff format, and passes ruff check (incl. complexity)
#   make translations  compile resources/i18n/*.ts into the .qm catalogues (every target that runs OkBot does it)
#   make screenshots  render the README screenshots into docs/screenshots (offscreen, fake server)
#   make package the desktop app in dist/okbot/ + dist/okbot-<version>-linux-x86_64.tar.gz, smoke-tested
#   make clean   remove build output and caches (keeps the venv); `make distclean` drops it too
#
# Knobs: VENV (default .venv), PYTHON (interpreter that creates the venv), PYTEST_ARGS, TEST_JOBS.

VENV ?= .venv
PYTHON ?= python3
PY = $(VENV)/bin/python
PIP = $(PY) -m pip
PYTEST_ARGS ?=
# pytest-xdist workers for `make test`: auto is one per CPU; 0 runs everything in one process.
TEST_JOBS ?= auto

# Stamps live inside the venv, so deleting the venv also forgets what was installed in it.
VENV_STAMP = $(VENV)/.okbot-venv.stamp
INSTALL_STAMP = $(VENV)/.okbot-install.stamp
TEST_STAMP = $(VENV)/.okbot-install-test.stamp

.DEFAULT_GOAL := help
.PHONY: help run test bench stress bench-real bench-agentic bench-strategies lint screenshots clean distclean venv install install-test package translations i18n-update

help:
	@sed -n '3,13p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

venv: $(VENV_STAMP)
install: $(INSTALL_STAMP)
install-test: $(TEST_STAMP) translations

# Creates the venv only when its interpreter is missing, then brings pip up to date.
$(VENV_STAMP):
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	@touch $@

# Re-installs only when pyproject.toml is newer than the stamp (the install is editable,
# so source edits need no re-install).
$(INSTALL_STAMP): pyproject.toml $(VENV_STAMP)
	$(PIP) install -e .
	@touch $@

$(TEST_STAMP): pyproject.toml $(VENV_STAMP)
	$(PIP) install -e ".[test]"
	@touch $@

# The translation catalogues: resources/i18n/okbot_<lang>.ts is the source, the .qm (committed too, so a wheel
# built from a clone has it) is compiled here with PySide6's pyside6-lrelease; the UI loads it with QTranslator and the core reads it
# without Qt (okbot/i18n.py). `make i18n-update` re-reads every marked string from okbot/ into the .ts.
QM_FILES = $(patsubst %.ts,%.qm,$(wildcard resources/i18n/okbot_*.ts))
translations: $(QM_FILES)
resources/i18n/%.qm: resources/i18n/%.ts | $(VENV_STAMP)
	$(PY) scripts/i18n.py release

i18n-update: $(INSTALL_STAMP)
	$(PY) scripts/i18n.py update
	$(PY) scripts/i18n.py status

run: $(INSTALL_STAMP) translations
	$(PY) -m okbot

# Every test, in two runs: the fast ones first (quick feedback), then those marked `slow` (the wheel build,
# the stress, fuzz and fidelity runs, the 100k-item view, anything over ~5 s). The second run happens even if
# the first failed, and the target fails if either did; a run that selects nothing (exit 5, e.g. PYTEST_ARGS
# naming a folder without slow tests) is not a failure unless both select nothing.
PYTEST_RUN = QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n $(TEST_JOBS) $(PYTEST_ARGS)
test: $(TEST_STAMP) translations
	fast=0; slow=0; \
	$(PYTEST_RUN) -m "not slow" || fast=$$?; \
	$(PYTEST_RUN) -m slow || slow=$$?; \
	if [ $$fast -eq 5 ] && [ $$slow -eq 5 ]; then exit 5; fi; \
	for rc in $$fast $$slow; do [ $$rc -eq 0 ] || [ $$rc -eq 5 ] || exit $$rc; done

bench: $(INSTALL_STAMP) translations
	$(PY) -m benchmarks

# Crash kills (200), hostile-input fuzzing (10,000 cases per loader), provider faults: figures, not pass/fail;
# then peak memory of every command with a 200 MB line in session.jsonl (fails over 250 MB).
stress: $(INSTALL_STAMP)
	$(PY) -m benchmarks.stress
	$(PY) -m benchmarks.bench_huge_line

# Summary + Buffer against a real model (BASE_URL/MODEL): first real chat turns with real summaries and
# compress-ahead (benchmarks/bench_real.py; BACKGROUND=both runs it with OkBot's own calls off, then on as
# the desktop app runs them, and compares replies cut and send -> first token; off or on runs one; REPLY_CAP
# caps chat replies at that many tokens on a slow machine), then the long scripted fidelity run with real summaries, then
# 40 scripted turns with persona and skill upkeep (benchmarks/bench_evolution.py), then MCP tools in real
# turns (benchmarks/bench_real_mcp.py: does the model call them with arguments the servers take), then a
# Chinese chat (benchmarks/bench_real_zh.py: are its summaries and memories Chinese, in our structure).
# BASE_URL: any OpenAI-compatible server, e.g. a llama.cpp or Ollama server on this machine (README).
TURNS ?= 30
WINDOW ?= 4000
FIDELITY_TURNS ?= 80
FIDELITY_WINDOW ?= 5000
BACKGROUND ?= both
bench-real: $(INSTALL_STAMP) translations
	@test -n "$(BASE_URL)" -a -n "$(MODEL)" || { echo "usage: make bench-real BASE_URL=URL MODEL=NAME [TURNS=$(TURNS) WINDOW=$(WINDOW) BACKGROUND=$(BACKGROUND) FIDELITY_TURNS=$(FIDELITY_TURNS)]"; exit 2; }
	$(PY) -m benchmarks.bench_real --base-url "$(BASE_URL)" --model "$(MODEL)" --turns $(TURNS) --window $(WINDOW) --background $(BACKGROUND) $(if $(REPLY_CAP),--reply-cap $(REPLY_CAP))
	$(PY) -m benchmarks.bench_fidelity --base-url "$(BASE_URL)" --model "$(MODEL)" --turns $(FIDELITY_TURNS) --window $(FIDELITY_WINDOW)
	$(PY) -m benchmarks.bench_evolution --base-url "$(BASE_URL)" --model "$(MODEL)" --window $(WINDOW)
	$(PY) -m benchmarks.bench_real_mcp --base-url "$(BASE_URL)" --model "$(MODEL)"
	$(PY) -m benchmarks.bench_real_zh --base-url "$(BASE_URL)" --model "$(MODEL)"

# One long turn of tool rounds (benchmarks/bench_agentic.py): the assistant reads part0.txt … one by one and
# lists every FACT number, in windows of AGENTIC_WINDOWS tokens. Without BASE_URL the fake server acts as
# the agent (10 and 30 files, seconds each); with BASE_URL/MODEL a real model makes its own tool calls
# (AGENTIC_FILES, default 10; BUDGET_MINUTES stops a turn that runs longer; REPLY_CAP, default 300 tokens).
AGENTIC_WINDOWS ?= 8192,16384
AGENTIC_FILES ?=
BUDGET_MINUTES ?=
bench-agentic: $(INSTALL_STAMP) translations
	$(PY) -m benchmarks.bench_agentic --windows $(AGENTIC_WINDOWS) $(if $(AGENTIC_FILES),--files $(AGENTIC_FILES)) $(if $(BASE_URL),--base-url "$(BASE_URL)" --model "$(MODEL)") $(if $(BUDGET_MINUTES),--budget-minutes $(BUDGET_MINUTES)) $(if $(REPLY_CAP),--reply-cap $(REPLY_CAP))

# Summary + Buffer beside the peers' strategies (benchmarks/bench_strategies.py): the same conversations through
# truncation, rewrite summary, Codex-style, structured rewrite and OkBot, scored by probes, 3 seeds. Without
# BASE_URL the fake model plays every scenario (about 1.5 minutes); with BASE_URL/MODEL the real model does.
# STRATEGY_ARGS passes the rest (--window, --scenarios, --turns, --seeds, --json, --plot PATH ...).
STRATEGY_ARGS ?=
bench-strategies: $(INSTALL_STAMP) translations
	$(PY) -m benchmarks.bench_strategies $(if $(BASE_URL),--base-url "$(BASE_URL)" --model "$(MODEL)",--fake) $(STRATEGY_ARGS)

lint: $(TEST_STAMP)
	$(PY) -m ruff format --check okbot tests benchmarks scripts packaging
	$(PY) -m ruff check okbot tests benchmarks scripts packaging

# A temporary data dir and the local fake OpenAI server: your own chats and settings are never read.
screenshots: $(INSTALL_STAMP) translations
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshots.py --out docs/screenshots
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshots_zh.py --out docs/screenshots/zh_CN
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshots_background.py --out docs/screenshots/background

# One-folder PyInstaller app, its archive and a smoke test (packaging/build.py, packaging/README.md).
# Uses its own build venv (PACKAGE_VENV), so the dev venv stays clean; the tiktoken encodings come
# from resources/tiktoken/ like every other resource.
PACKAGE_VENV ?= .venv-package
package:
	$(PYTHON) packaging/build.py --venv $(PACKAGE_VENV)

clean:
	rm -rf build dist .pytest_cache .ruff_cache .hypothesis ./*.egg-info
	find okbot tests benchmarks resources -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
