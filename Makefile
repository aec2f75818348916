# gpuprims -- build, test, bench.  `make` builds everything; `make test` runs the tests
# (GPU tests are skipped without a GPU); `make bench` writes bench/results/.
# Targets: all test sanitize bench examples run-examples ptx compile-cost install expand clean.

ARCH      ?= sm_90
NVCC      ?= nvcc
CC        ?= gcc
PREFIX    ?= /usr/local
BUILD     ?= build
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC)))
NPROC     := $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += -j$(NPROC) --no-print-directory

NVCCFLAGS ?= -O3 -std=c++17 -arch=$(ARCH) -lineinfo -Xcompiler -Wall,-Wextra
CFLAGS    ?= -O2 -std=c11 -Wall -Wextra -pedantic
DEPFLAGS   = -MMD -MP
COMMIT    ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

TEST_CU   := $(wildcard tests/*.cu)
TEST_C    := $(wildcard tests/*.c)
TEST_OBJ  := $(TEST_CU:%.cu=$(BUILD)/%.o) $(TEST_C:%.c=$(BUILD)/%.c.o)
TESTS     := $(BUILD)/tests/run_tests
EXAMPLES  := $(patsubst examples/%.cu,$(BUILD)/examples/%,$(wildcard examples/*.cu))
BENCHES   := $(patsubst bench/%.cu,$(BUILD)/bench/%,$(wildcard bench/*.cu))

.PHONY: all test sanitize bench examples run-examples ptx compile-cost install expand clean

all: $(TESTS) $(EXAMPLES) $(BENCHES)

# Everything is built first, so a build break anywhere fails `make test` (and CI).
test: all
	$(TESTS)

# The GPU tests under the four compute-sanitizer tools. Smaller sizes (GP_TEST_SMALL=1:
# no 2^24 or 2^31 counts) keep all four within a few minutes; racecheck, slow on shared
# memory, also runs fewer placements (GP_TEST_SMALL=2; every scan instance). The CUDA_CHK scenarios run
# in child processes that fail on purpose; they are not sanitized (application-only).
SANITIZE = compute-sanitizer --error-exitcode 1 --target-processes application-only
sanitize: $(TESTS)
	GP_TEST_SMALL=1 $(SANITIZE) --tool memcheck --leak-check full $(TESTS)
	GP_TEST_SMALL=2 $(SANITIZE) --tool racecheck $(TESTS)
	GP_TEST_SMALL=1 $(SANITIZE) --tool synccheck $(TESTS)
	GP_TEST_SMALL=1 $(SANITIZE) --tool initcheck $(TESTS)

# Each bench writes bench/results/<gpu>.<bench>.md/.csv; bench/results/<gpu>.md collects them.
bench: $(BENCHES)
	@mkdir -p bench/results
	@for b in $(BENCHES); do GP_COMMIT=$(COMMIT) $$b || exit 1; done
	@for gpu in $$(ls bench/results/*.*.md | sed -E 's|bench/results/([^.]*)\..*|\1|' | sort -u); do \
	  { echo "# gpuprims benchmarks: $$gpu"; echo; echo "Assembled by \`make bench\` (at $(COMMIT)) from the per-bench tables beside this file; each section names the GPU, date and commit of its own run."; \
	    for f in bench/results/$$gpu.*.md; do echo; cat $$f; done; } > bench/results/$$gpu.md; \
	  echo "wrote bench/results/$$gpu.md"; done

# Every example checks its own result and exits non-zero on a mismatch: the loop stops at
# the first failure. Run without arguments, each does its whole demonstration (errors.cu
# without arguments is the clean run; `build/examples/errors 1|2|3` plants a bug).
examples: $(EXAMPLES)
run-examples: $(EXAMPLES)
	@for e in $(EXAMPLES); do echo "== $$e"; $$e || { echo "FAILED: $$e (status $$?)"; exit 1; }; done

# The PTX of examples/ptx.cu, and the lines that show 2.27 (double) against 2.27f (float).
ptx: $(BUILD)/examples/ptx.ptx
	@echo "$<: the entries and their cvt/mul instructions"
	@grep -E '\.entry|(cvt|mul)(\.rn)?\.f(32|64)' $<

# Compile time of a TU with one device reduce, gpuprims against CUB (CPU only, no GPU).
compile-cost:
	@bash bench/compile_cost/measure.sh "$(NVCC) $(NVCCFLAGS)" | tee bench/results/compile_cost.md

install:
	install -d $(DESTDIR)$(PREFIX)/include/gpuprims/detail
	install -m 644 gpuprims.cuh $(DESTDIR)$(PREFIX)/include/gpuprims/
	install -m 644 detail/*.cuh $(DESTDIR)$(PREFIX)/include/gpuprims/detail/
	@echo "installed: #include <gpuprims/gpuprims.cuh> with -I$(PREFIX)/include"

# Read what the macros generate: make expand F=tests/test_reduce_user.cu
expand:
	@test -n "$(F)" || { echo "usage: make expand F=file.cu"; exit 2; }
	@$(NVCC) -std=c++17 -arch=$(ARCH) -E -I. $(F) 2>/dev/null | grep -v '^#' | clang-format --style='{BasedOnStyle: LLVM, ColumnLimit: 110}'

clean:
	rm -rf $(BUILD)

$(TESTS): $(TEST_OBJ)
	$(NVCC) $(NVCCFLAGS) $^ -o $@

$(BUILD)/tests/%.o: tests/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(DEPFLAGS) $(TEST_DEFS) -I. -c $< -o $@

# tests/test_examples.cu runs nvcc on examples/ptx.cu and runs the built examples.
$(BUILD)/tests/test_examples.o: TEST_DEFS = -DGP_T_NVCC='"$(NVCC)"' -DGP_T_ARCH='"$(ARCH)"' \
    -DGP_T_ROOT='"$(CURDIR)"' -DGP_T_EXAMPLES='"$(abspath $(BUILD))/examples"'

$(BUILD)/tests/%.c.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -I. -I$(CUDA_HOME)/include -c $< -o $@

$(BUILD)/examples/%: examples/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(DEPFLAGS) -I. $< -o $@

$(BUILD)/examples/%.ptx: examples/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -I. -ptx $< -o $@

$(BUILD)/bench/%: bench/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(DEPFLAGS) -I. $< -o $@ -lcublas

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
