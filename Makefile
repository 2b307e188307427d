# The two Quick start commands (README.md) live here: `make run` and `make test`.
# Each installs whatever is missing (scripts/install-deps.sh), configures, builds, then acts.
JOBS    ?= $(shell nproc)
PORT    ?= 8080
DB      ?= ./tactics.db
RELEASE := build/release
ASAN    := build/asan

.PHONY: deps build-deps build run test bench format clean

# Building and running need Debian packages only; the tests also need Node.js (contract tools).
build-deps:
	@scripts/install-deps.sh build

deps:
	@scripts/install-deps.sh

build: build-deps
	cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release -DTACTICS_TESTS=OFF
	cmake --build $(RELEASE) -j $(JOBS)

run: build
	$(RELEASE)/service/tacticsd --port $(PORT) --db $(DB)

# Debug build with AddressSanitizer, LeakSanitizer and UBSan; every suite goes through CTest.
test: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DTACTICS_SANITIZE=ON
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && ctest --output-on-failure --no-tests=error -j $(JOBS)

# Benchmarks on the Release build; figures are ratios to a baseline in the same process.
bench: build
	$(RELEASE)/bench/rules_bench
	$(RELEASE)/bench/handler_bench
	$(RELEASE)/bench/odds_bench
	bench/movement.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build
