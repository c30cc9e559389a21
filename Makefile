# Two entry points do all the set-up on a fresh Debian 12 machine:
#   make run    install deps if missing, configure, build, run the bundled default scenario
#   make test   same set-up, then every test: ctest (Catch2 + validation) and pytest (+ notebooks)
PY      := /usr/bin/python3
BUILD   := build
export PYTHONPATH := $(CURDIR)/$(BUILD)/python

.PHONY: deps configure build run test ctest pytest bench clean

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake --preset default

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build --preset default

run: build
	./$(BUILD)/bin/aidcsim run

ctest: build
	ctest --preset default

pytest: build
	$(PY) -m pytest -q tests/python

test: ctest pytest

bench: build
	./$(BUILD)/bin/aidcsim-bench

clean:
	rm -rf $(BUILD)
