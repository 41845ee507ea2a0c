# sluice — the commands a new user (and CI) runs. Each target does the set-up it needs
# first: scripts/setup.sh installs only what is missing (Debian packages, the repo's .venv).
BUILD_DIR ?= build
ASAN_BUILD_DIR ?= build-asan
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
# Extra CMake settings for a new build directory, e.g. CMAKE_ARGS=-DSLUICE_WERROR=ON (as CI).
CMAKE_ARGS ?=

.PHONY: all setup build test conformance fuzz fuzz-setup fuzz-build build-asan test-asan include-check demo clean bench bench-quick bench-kafka

all: build

setup:
	@./scripts/setup.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt | setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

build: setup $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)
	@echo "sluice CLI: $(BUILD_DIR)/bin/sluice"

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Every case of the Spark differential suite (tests/conformance; `make test` runs a subset).
CONFORMANCE_ARGS ?=
conformance: build
	SLUICE_BIN_DIR=$(abspath $(BUILD_DIR))/bin SLUICE_CONFORMANCE=full ./.venv/bin/python -m pytest -q \
	  -p no:cacheprovider tests/conformance $(CONFORMANCE_ARGS)

# Fuzzing of the JSON/CSV readers, the checkpoint and sink-log parsers, the Iceberg manifest
# reader and the SQL front end (tests/fuzz, docs/testing.md). First the deterministic mutation
# runner (tests/unit/fuzz_parsers_test.cc): FUZZ_ITERATIONS mutations per target (`make test`
# runs 300); run it in the ASan build too: BUILD_DIR=build-asan after make build-asan. Then each
# libFuzzer target (clang, ASan+UBSan, FUZZ_BUILD_DIR) for FUZZ_SECONDS of wall time (or
# FUZZ_CPU_SECONDS of CPU time, when set): findings are saved in
# $(FUZZ_BUILD_DIR)/crashes/<target>/ and fail the target. `scripts/setup.sh fuzz` installs clang.
FUZZ_ITERATIONS ?= 20000
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CPU_SECONDS ?=
fuzz: build fuzz-build
	cd $(BUILD_DIR) && SLUICE_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) ctest --output-on-failure -R '^Fuzz\.'
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_CPU_SECONDS=$(FUZZ_CPU_SECONDS) ./scripts/fuzz $(FUZZ_BUILD_DIR)

fuzz-setup:
	@./scripts/setup.sh fuzz

$(FUZZ_BUILD_DIR)/build.ninja: CMakeLists.txt cmake/Fuzz.cmake | fuzz-setup
	cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DSLUICE_LIBFUZZER=ON $(CMAKE_ARGS)

fuzz-build: fuzz-setup $(FUZZ_BUILD_DIR)/build.ninja
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build directory:
# -O1 -g1 (quick to compile, line numbers in reports), unity batches and precompiled headers as
# in the plain build. Any finding, leaks included, fails the test that hit it.
$(ASAN_BUILD_DIR)/build.ninja: CMakeLists.txt | setup
	cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Asan -DCMAKE_CXX_FLAGS_ASAN="-O1 -g1" \
	  -DSLUICE_SANITIZE=ON $(CMAKE_ARGS)

build-asan: setup $(ASAN_BUILD_DIR)/build.ninja
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)

# Tests whose subject is an outside JVM reader (PySpark reading sluice's output, the PySpark
# differential suite) run in the plain build only: under ASan they would add minutes of JVM time
# and no instrumented sluice code that the rest of the suite does not already run.
ASAN_CTEST_EXCLUDE ?= ^(conformance_pytest|interop/test_pyspark_file_sink|interop/test_partitioned_file_sink)$$
test-asan: build-asan
	cd $(ASAN_BUILD_DIR) && \
	  ASAN_OPTIONS=detect_leaks=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  SLUICE_KAFKA_KILLS=$${SLUICE_KAFKA_KILLS:-10} \
	  SLUICE_JOIN_KILLS=$${SLUICE_JOIN_KILLS:-2} \
	  ctest --output-on-failure -j $(JOBS) -E '$(ASAN_CTEST_EXCLUDE)' $(CTEST_ARGS)

# Every file of src/ includes what it uses: the library compiled one file at a time, without its
# precompiled header (which, like the unity batches of a normal build, hides a missing include),
# at -O0, in its own build directory. Not part of `make test` or CI: it costs as much CPU as the
# rest of the build.
INCLUDE_CHECK_BUILD_DIR ?= build-include-check
include-check: setup
	cmake -S . -B $(INCLUDE_CHECK_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
	  -DSLUICE_INCLUDE_CHECK=ON $(CMAKE_ARGS)
	cmake --build $(INCLUDE_CHECK_BUILD_DIR) -j $(JOBS) --target sluice_core sluice_cli

demo: build
	./examples/demo.sh $(BUILD_DIR)/bin

# Benchmarks against Spark, Flink, DuckDB and Arrow's JSON reader (bench/README.md). bench/setup.sh
# builds and installs the benchmark-only packages; `make test` never installs them.
BENCH_ARGS ?=
bench:
	./bench/setup.sh
	./bench/run $(BENCH_ARGS)

bench-quick:
	./bench/setup.sh
	./bench/run --quick $(BENCH_ARGS)

# Kafka -> Parquet throughput against Spark's Kafka source (bench/kafka_q0.py; starts its own broker).
bench-kafka:
	./bench/setup.sh
	./bench/kafka_q0.py $(BENCH_ARGS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
