# Quick start: `make run` and `make test`. Everything else is plain CMake in build/.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test bench install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/simfa run --timeline $(BUILD)/timeline.svg

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
