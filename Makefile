# Tool Contract Workbench: every set-up step lives here, so a fresh machine needs only
# `make lab` (JupyterLab on the tutorials) or `make test` (the whole suite).

PYTHON  ?= python3
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
NODE_STAMP := external/node_modules/.installed
LAB_PORT ?= 8888

.PHONY: help install node chromium compiled test test-fast lab demo bench lint clean record-model

help:
	@echo "make lab    - set up everything and open JupyterLab on notebooks/ (127.0.0.1:$(LAB_PORT))"
	@echo "make test   - set up everything and run the whole suite (unit, MCP, notebooks, browser)"
	@echo "make demo   - run the oracle-grove scenario in the terminal"
	@echo "make bench  - run the benchmarks in bench/ (prints ratios measured in one run)"
	@echo "make test-fast - the inner loop: no browser, no npm servers, no notebooks"
	@echo "make compiled - the audit compiled with mypyc, in build/compiled (PYTHONPATH=build/compiled)"
	@echo "make record-model GGUF=FILE LICENCE=ID - re-record the tutorials' real-model cassettes"

# The virtual environment and every Python package the tests and tutorials need.
# pip's own lines are the install's progress (a first install takes a minute or two).
$(STAMP): pyproject.toml
	@echo "== installing the workbench and its Python packages into $(VENV) (first time: a minute or two)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -e ".[dev]"
	touch $(STAMP)
	@echo "== Python packages installed"

install: $(STAMP)

# External MCP peers from npm (server-everything, the MCP Inspector), pinned by the lock file.
# Not `npm ci`: it rejects this lock for an optional Windows-only package of a transitive
# dependency that npm leaves out of the lock; `install --no-save` follows the lock as is.
$(NODE_STAMP): external/package.json external/package-lock.json
	@echo "== installing the npm MCP servers into external/node_modules"
	cd external && npm install --no-save --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

node: $(NODE_STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; no browser download).
chromium:
	@test -x /usr/bin/chromium || { \
	  SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The audit compiled with mypyc: a copy of workbench/ in build/compiled whose audit modules
# are C extensions (tools/compile_audit.py). Put first on the path, it runs instead of the
# editable install's audit; rebuilt when a source changes.
COMPILED := build/compiled
$(COMPILED)/.built: $(STAMP) tools/compile_audit.py $(shell find workbench -name '*.py')
	@echo "== compiling the audit with mypyc into $(COMPILED)"
	$(PY) tools/compile_audit.py $(COMPILED)

compiled: $(COMPILED)/.built

# Two workers: most of the suite waits on servers, kernels and browsers, not on a core.
# --dist loadfile keeps a file on one worker: a notebook's cells share one kernel, and a
# module's JupyterLab or server fixture is started once.
# Beside it, the audit compiled and its tests run on it (-P: the checkout's directory is not
# put first on the path, so build/compiled is), printed after the main suite's.
test: install node chromium lint
	@mkdir -p build; { $(MAKE) --no-print-directory compiled && \
	  WORKBENCH_COMPILED=$(COMPILED) PYTHONPATH=$(COMPILED) $(PY) -P -m pytest tests/audit \
	  -p no:nbval -n 2 -q; } > build/compiled-tests.log 2>&1 & second=$$!; \
	$(PY) -m pytest --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg \
	  --workbench config -n 2 --dist loadfile; main=$$?; \
	wait $$second; compiled=$$?; \
	echo "== the audit compiled, and its tests on it (build/compiled-tests.log)"; \
	cat build/compiled-tests.log; test $$main = 0 && test $$compiled = 0

# The inner loop, under a minute: no browser, no npm server, no notebooks, nothing that
# starts processes (servers, kills, Dask, CLIs) and nothing slow. `make test` runs it all.
test-fast: install
	$(PY) -m pytest -m "not browser and not external and not slow and not subprocess" -p no:nbval \
	  -n 2

# The token is JupyterLab's password for this session: made here (or LAB_TOKEN=...), so the
# URL printed first is the one to open. port_retries=0: a busy port fails rather than
# silently moving the server away from the printed URL. JupyterLab asks every new user
# whether to fetch its news, in a toast over the bottom right of every page until answered:
# the venv's overrides.json answers "no" by default (Settings can still turn it on), and
# news_url=None keeps the server from fetching any.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
lab: install node
	@test -f $(LAB_OVERRIDES) || { mkdir -p $(dir $(LAB_OVERRIDES)) && \
	  echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
	  > $(LAB_OVERRIDES); }
	@token=$${LAB_TOKEN:-$$($(PY) -c 'import secrets; print(secrets.token_hex(24))')}; \
	echo ""; \
	echo "  JupyterLab: open http://127.0.0.1:$(LAB_PORT)/lab?token=$$token"; \
	echo "  (Ctrl-C stops it; the CLI is .venv/bin/workbench, or: . .venv/bin/activate)"; \
	echo ""; \
	exec $(VENV)/bin/jupyter lab --no-browser --ip=127.0.0.1 --port=$(LAB_PORT) \
	  --ServerApp.port_retries=0 --IdentityProvider.token="$$token" \
	  $$(test "$$(id -u)" = 0 && echo --allow-root) \
	  --ServerApp.root_dir=notebooks --LabApp.news_url=None

demo: install
	$(VENV)/bin/workbench run oracle-grove --ticks 5

bench: install node compiled
	$(PY) bench/run_all.py

# ruff (style, docstrings) and import-linter (the floors in pyproject.toml: no upward
# import, no circle).
lint: install
	$(VENV)/bin/ruff check workbench tests bench tools
	$(VENV)/bin/lint-imports

# Re-recording the tutorials' real-model cassettes (config/cassettes/real/), never part of
# `make test`: the tests and notebooks replay them with no model present. llama.cpp's
# OpenAI-compatible server is built from source into its own venv (several minutes on two
# cores). Its default build enables AMX kernels that kill the server at its first
# generation on some CPUs, so the CPU features are named instead of detected. The model
# file is yours to give: the project depends on no weights package.
LLAMA_VENV  ?= .venv-llama
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
$(LLAMA_VENV)/.installed:
	@echo "== building llama-cpp-python[server] from source into $(LLAMA_VENV) (several minutes)"
	test -x $(LLAMA_VENV)/bin/python || $(PYTHON) -m venv $(LLAMA_VENV)
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(LLAMA_VENV)/bin/python -m pip install \
	  --disable-pip-version-check --no-cache-dir "llama-cpp-python[server]==0.3.36"
	touch $@

record-model: install $(LLAMA_VENV)/.installed
	@test -n "$(GGUF)" || { echo "give the model file: make record-model GGUF=FILE LICENCE=ID"; exit 2; }
	$(PY) recording/record_model.py --gguf "$(GGUF)" --llama-python $(LLAMA_VENV)/bin/python \
	  $(if $(LICENCE),--licence "$(LICENCE)") $(if $(SOURCE),--source "$(SOURCE)")

clean:
	rm -rf $(VENV) external/node_modules bench/results test-artifacts build
