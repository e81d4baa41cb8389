# Kifu — the two commands of the README, plus helpers.
DB ?= kifu.duckdb
PORT ?= 8501
## Test worker processes (pytest-xdist) for `make test`: one per core and one more, for the tests that wait
## (on chromium, on a server, on a paced replay); `.venv/bin/python -m pytest` alone runs the suite in one process.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

.PHONY: demo test setup setup-dev ingest-sample serve bench messages clean

## Ingest the bundled sample log into $(DB) and serve the dashboard on 127.0.0.1:$(PORT).
demo: setup ingest-sample serve

## Run the whole test suite (unit, fixtures, MongoDB via mongomock, AppTest, browser, notebook) on
## $(TEST_WORKERS) worker processes; the tests of one module-scoped fixture stay on one worker (tests/conftest.py);
## the 20 slowest tests are listed at the end. The tests marked `alone` (a page or a watcher held to the clock)
## run after the others, in one process, where no other test competes for the cores.
test: setup-dev
	.venv/bin/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=20 -m "not alone"
	.venv/bin/python -m pytest --durations=5 -m alone

setup:
	scripts/setup.sh

setup-dev:
	scripts/setup.sh dev

ingest-sample:
	.venv/bin/kifu ingest --sample --db $(DB)

serve:
	.venv/bin/kifu serve --db $(DB) --port $(PORT)

bench: setup-dev
	.venv/bin/python benchmarks/run.py
	.venv/bin/python benchmarks/bench_browser.py

## Re-extract the dashboard's messages into app/locale (then translate the new ones in kifu.po).
messages: setup-dev
	.venv/bin/python scripts/messages.py

clean:
	rm -rf .venv .pytest_cache .hypothesis test-results $(DB)
