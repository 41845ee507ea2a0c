# sluice — the commands a new user (and CI) runs. Each target does the set-up it needs
# first: scripts/setup.sh installs only what is missing (Debian packages, the repo's .venv).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: all setup build test conformance demo clean bench bench-quick

all: build

setup:
	@./scripts/setup.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt | setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

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

clean:
	rm -rf $(BUILD_DIR)
