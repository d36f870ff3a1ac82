# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test check fmt schema bench bench-skills bench-planned bench-compare bench-memory bench-turns bench-search bench-dreamer \
	bench-dreamer-mail bench-dreamer-removal bench-edge bench-data bench-peer bench-records-sql \
	bench-turn-sql soak

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/skillmem serve --demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

check: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy gateway schema resolvers db
	$(BIN)/skillmem schema --check

fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

schema: $(STAMP)
	$(BIN)/skillmem schema > schema.graphql

bench: $(STAMP)
	$(BIN)/python -m bench.records

bench-skills: $(STAMP)
	$(BIN)/python -m bench.skills

# The planned executor against graphql-core alone, in process (server CPU a records page).
bench-planned: $(STAMP)
	$(BIN)/python -m bench.planned $(ARGS)

bench-memory: $(STAMP)
	$(BIN)/python -m bench.memory

bench-turns: $(STAMP)
	$(BIN)/python -m bench.turns

# The records page's PostgreSQL side before and after migration 0041, alternating on one backend
# (bench/records_sql.py; --callgrind DIR counts instructions under valgrind); ARGS="--calls 300
# --rounds 2" for a short run.
bench-records-sql: $(STAMP)
	$(BIN)/python -m bench.records_sql $(ARGS)

# A turn's statement before and after migration 0043, call by call on one backend
# (bench/turn_sql.py); ARGS="--rounds 4" for a short run.
bench-turn-sql: $(STAMP)
	$(BIN)/python -m bench.turn_sql $(ARGS)

# The memory search before issue 17 and now, in the same run, on the bench workspace.
bench-search: $(STAMP)
	$(BIN)/python -m bench.search $(ARGS)

bench-dreamer: $(STAMP)
	$(BIN)/python -m bench.dreamer

# The hourly mail job over 10,000 mailboxes; ARGS="--mailboxes 200 --workspaces 2 --rounds 1"
# for a smoke run.
bench-dreamer-mail: $(STAMP)
	$(BIN)/python -m bench.dreamer_mail $(ARGS)

# The Monday removal over the bench workspace's 50,000 pages; ARGS="--pages 300" for a smoke run.
bench-dreamer-removal: $(STAMP)
	$(BIN)/python -m bench.dreamer_removal $(ARGS)

# What the metrics and CORS middleware add to each request (CPU in this process, alternating).
bench-edge: $(STAMP)
	$(BIN)/python -m bench.edge $(ARGS)

# Two commits' bench, bench-memory and bench-turns in turn (each in its own worktree under
# .data/compare/), rounds alternating their order: ARGS="29c99ae ." ("." is this checkout).
bench-compare: $(STAMP)
	$(BIN)/python -m bench.compare $(ARGS)

bench-data: $(STAMP)
	$(BIN)/python -m bench.generate

# The records page against PostGraphile 5 and the plain baseline, and at 1 and 2 worker
# processes, in interleaved rounds (bench/records_peer.py). Installs PostGraphile and Node 22
# from npm into bench/peer/node_modules (the bench folder only: no test needs them); npm must be
# on the PATH. ARGS="--rounds 2 --seconds 2" for a short run, ARGS="--only workers" for part.
PEER_MODULES := bench/peer/node_modules/.installed

$(PEER_MODULES): bench/peer/package.json bench/peer/package-lock.json
	cd bench/peer && npm ci --no-audit --no-fund
	touch $@

bench-peer: $(STAMP) $(PEER_MODULES)
	$(BIN)/python -m bench.records_peer $(ARGS)

# The six fault and load tests of issue 16 (bench/soak/): real gateway and worker processes on
# an embedded PostgreSQL of their own; writes RELIABILITY.md. About 6 minutes by default;
# ARGS="--seconds 10 --lanes 4" for a short run, ARGS="--only steady abuse" for some of them.
soak: $(STAMP)
	$(BIN)/python -m bench.soak $(ARGS)
