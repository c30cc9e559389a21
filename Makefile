# Two entry points do all the set-up on a fresh Debian 12 machine:
#   make run    install deps if missing, configure, build, run the bundled default scenario
#   make test   same set-up, then every test: ctest (Catch2 + validation) and pytest (+ notebooks)
#   make bench  same set-up, then every benchmark program built from bench/*.cpp (prints figures)
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

# Every bench/*.cpp is an executable named after its file in $(BUILD)/bin (bench/CMakeLists.txt),
# every bench/*.sh a script taking the aidcsim binary; each prints its own figures (CPU time,
# peak RSS), run here one after the other.
BENCHES := $(sort $(basename $(notdir $(wildcard bench/*.cpp))))
BENCH_SCRIPTS := $(sort $(wildcard bench/*.sh))

bench: build
	@$(foreach b,$(BENCHES),echo "== bench/$(b).cpp: $(BUILD)/bin/$(b)" && $(BUILD)/bin/$(b) && echo &&) true
	@$(foreach s,$(BENCH_SCRIPTS),echo "== $(s)" && bash $(s) $(BUILD)/bin/aidcsim && echo &&) true

clean:
	rm -rf $(BUILD)
