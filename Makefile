# The two commands of the README: `make run` and `make test`. Each installs the
# Debian packages it lacks, configures and builds into build/ (executables in
# build/bin/), then runs.
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

TARGET ?= fuzz_decode
SECONDS ?= 600

.PHONY: all deps configure build run matrix test-browser test test-sanitize test-long fuzz fuzz-ci bench check-big-endian package clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only the runner and the reference adapter: a first `make run` does not wait
# for the tests, fuzzers, benchmarks and mutants (`make test` builds them).
run: configure
	@cmake --build $(BUILD) -j$(JOBS) --target kiln-conformance kiln-reference-adapter
	@scripts/run-suite $(BUILD)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -LE 'long|browser'

# Every implementation in the tree against the suite, merged into one page:
# build/report/matrix.html (scripts/run-matrix says which).
matrix: build
	@scripts/run-matrix $(BUILD)

# The HTML reports in headless Chromium (ctest label "browser"; CI runs it).
test-browser: build
	@scripts/install-deps chromium chromium-driver python3-selenium
	@KILN_REQUIRE_BROWSER=1 ctest --test-dir $(BUILD) --output-on-failure -L browser

# The same tests, built with AddressSanitizer and UndefinedBehaviorSanitizer.
# The fuzz-only label measures the fuzzer's finding power with fixed budgets,
# and the browser label needs the browser (make test-browser);
# the fuzz command's code runs under the sanitizers in the runner's own tests.
test-sanitize: deps
	@cmake -S . -B $(SANITIZE_BUILD) -DKILN_SANITIZE=ON -DKILN_BUILD_BENCH=OFF \
	  -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(SANITIZE_BUILD) -j$(JOBS)
	@ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j$(JOBS) -LE 'long|fuzz-only|browser' \
	  -E fuzz_oss_fuzz_build

# Long-running checks (RapidCheck with many more cases): not part of `make test`.
test-long: build
	@ctest --test-dir $(BUILD) --output-on-failure -L long

# The reference and its adapter cross-built for s390x (big-endian), run under
# qemu-user and certified by the host's runner.
check-big-endian: build
	@scripts/check-big-endian $(BUILD)

# Every Google Benchmark program; ratios against their aims; results in bench/results/.
bench: build
	@bench/run-benchmarks $(BUILD)

# libFuzzer with ASan+UBSan (clang-14): one target for SECONDS, JOBS workers.
fuzz: deps
	@fuzz/run-fuzzers --target $(TARGET) --seconds $(SECONDS) --jobs $(JOBS)

# Each target briefly, with OSS-Fuzz's limits; fails on any crash (CI runs this).
fuzz-ci: deps
	@fuzz/run-fuzzers --ci

# Debian packages (CPack): kiln-conformance (runner, reference adapter, cases,
# docs) and kiln-conformance-dev (headers, libraries, CMake package), in $(BUILD)/.
package: build
	@cmake --build $(BUILD) --target package

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) build-fuzz build-s390x
