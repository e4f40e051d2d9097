# Quick start: `make run` and `make test`. Everything else is plain CMake in build/.
# `make test-sanitize` (CI runs it after `make test`): the suite again under ASan + UBSan in
# build-asan/, with clang when present (then also the libFuzzer smoke runs); docs/testing.md.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
# Evaluated when used, after `deps` may have installed clang.
SANITIZE_CXX ?= $(shell command -v clang++-14 || command -v clang++ || echo c++)
# Any sanitizer report fails the test that triggered it; file:line in reports via llvm-symbolizer.
SYMBOLIZER = $(firstword $(wildcard /usr/lib/llvm-14/bin/llvm-symbolizer /usr/bin/llvm-symbolizer))
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
               $(if $(SYMBOLIZER),ASAN_SYMBOLIZER_PATH=$(SYMBOLIZER))

.PHONY: all deps configure build run test test-sanitize bench install clean

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

$(ASAN_BUILD)/build.ninja: | deps
	CXX=$(SANITIZE_CXX) cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMFA_SANITIZE=ON -DSIMFA_GPU_KIT=OFF

test-sanitize: $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -LE '^(cuda|gpu)$$'

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
