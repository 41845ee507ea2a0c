# sluice — the commands a new user (and CI) runs. Each target does the set-up it needs
# first: scripts/setup.sh installs only what is missing (Debian packages, the repo's .venv).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: all setup build test demo clean bench

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

demo: build
	./examples/demo.sh $(BUILD_DIR)/bin

clean:
	rm -rf $(BUILD_DIR)
