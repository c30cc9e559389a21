# Two entry points do all the set-up on a fresh Debian 12 machine:
#   make run    install deps if missing, configure, build, run the bundled default scenario
#   make test   same set-up, then every test: ctest (Catch2 + validation) and pytest (+ notebooks)
#   make bench  same set-up, then every benchmark program built from bench/*.cpp (prints figures)
#   make validate-large  the published 8K-16K GPU runs (docs/validation-large-runs.md), minutes of CPU
PY      := /usr/bin/python3
BUILD   := build
export PYTHONPATH := $(CURDIR)/$(BUILD)/python

.PHONY: deps configure build run test ctest pytest bench validate-large bless format sanitize fuzz clean

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

# Llama 3 405B Table 4 at 8,192 and 16,384 H100 (~4 min of CPU, so hidden from ctest's
# test_validation run by the [.] tag); Nemotron-4 15B's rows also run in ctest.
validate-large: build
	./$(BUILD)/bin/test_validation "[large_runs]"

# Regression tier (docs/testing.md): rewrite the blessed results tests/regression/*.expected.json
# from this build after an intended change of the numbers; commit the diff with the change.
bless: build
	$(PY) tests/regression/regress.py $(BUILD)/bin/aidcsim --update

# Reformat every C++ file of the tree as .clang-format says (clang-format 14, Debian 12's); the
# ctest lint_format checks it.
format: deps
	git ls-files '*.cpp' '*.hpp' | xargs clang-format-14 -i --style=file

# Every bench/*.cpp is an executable named after its file in $(BUILD)/bin (bench/CMakeLists.txt),
# every bench/*.sh a script taking the aidcsim binary; each prints its own figures (CPU time,
# peak RSS), run here one after the other.
BENCHES := $(sort $(basename $(notdir $(wildcard bench/*.cpp))))
BENCH_SCRIPTS := $(sort $(wildcard bench/*.sh))

bench: build
	@$(foreach b,$(BENCHES),echo "== bench/$(b).cpp: $(BUILD)/bin/$(b)" && $(BUILD)/bin/$(b) && echo &&) true
	@$(foreach s,$(BENCH_SCRIPTS),echo "== $(s)" && bash $(s) $(BUILD)/bin/aidcsim && echo &&) true

# Sanitizers (docs/testing.md): the asan preset (clang, ASan + UBSan, no jemalloc) in build-asan/,
# then the ctest suite without the slow end-to-end tests (SANITIZE_EXCLUDE; the installed-package
# test links a gcc consumer, which cannot link sanitized libraries; the preset builds no Python
# module, which `aidcsim sweep` / `compare` run in, so their CLI tests are left out too) and the
# default scenario; the first report fails the target.
ASAN_BUILD := build-asan
SANITIZE_EXCLUDE ?= ^(install_consumer|cli_signals|cli_outputs|cli_same_seed_identical|cli_mutate_scenarios|cli_sigkill_sweep|cli_set_on_command_line|regression)$$
export ASAN_OPTIONS  ?= halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS ?= halt_on_error=1:print_stacktrace=1

$(ASAN_BUILD)/build.ninja: | deps
	cmake --preset asan

sanitize: deps $(ASAN_BUILD)/build.ninja
	cmake --build --preset asan --target ctest_targets
	ctest --preset asan -E '$(SANITIZE_EXCLUDE)'
	./$(ASAN_BUILD)/bin/aidcsim run --quiet --json $(ASAN_BUILD)/default.json --output $(ASAN_BUILD)/default.h5

# libFuzzer (tests/fuzz/): each target runs FUZZ_SECONDS from the seed corpus (bundled and test
# scenarios + tests/fuzz/corpus/); new inputs go to $(ASAN_BUILD)/fuzz-corpus/, a crash to
# $(ASAN_BUILD)/fuzz-artifacts/ and fails the target.
FUZZ_SECONDS ?= 60
# The regression tier's scenarios (tests/regression/*.yaml: faults, phases, MoE, fabric failures)
# are seeds too, copied apart from their blessed results.
FUZZ_SEEDS := scenarios tests/data tests/fuzz/corpus $(ASAN_BUILD)/fuzz-seeds

fuzz: deps $(ASAN_BUILD)/build.ninja
	cmake --build --preset asan --target fuzz_scenario fuzz_units
	@mkdir -p $(ASAN_BUILD)/fuzz-corpus/scenario $(ASAN_BUILD)/fuzz-corpus/units $(ASAN_BUILD)/fuzz-artifacts $(ASAN_BUILD)/fuzz-seeds
	cp tests/regression/*.yaml $(ASAN_BUILD)/fuzz-seeds/
	./$(ASAN_BUILD)/bin/fuzz_scenario -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	  -dict=tests/fuzz/scenario.dict -artifact_prefix=$(ASAN_BUILD)/fuzz-artifacts/ -print_final_stats=1 \
	  $(ASAN_BUILD)/fuzz-corpus/scenario $(FUZZ_SEEDS)
	./$(ASAN_BUILD)/bin/fuzz_units -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=64 \
	  -dict=tests/fuzz/units.dict -artifact_prefix=$(ASAN_BUILD)/fuzz-artifacts/ -print_final_stats=1 \
	  $(ASAN_BUILD)/fuzz-corpus/units tests/fuzz/units

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
