# gpuprims -- build, test, bench, package. `make` builds the library, tests and examples;
# `make test` runs the tests (GPU tests are skipped without a GPU); `make install`. The
# GPU-only programs (benches, stress) are built by `make bench` / `make stress`, or all at
# once by `make extras` (CI builds them, so a break in them fails there).
# Targets: all lib test test-python sanitize bench extras results plots examples run-examples ptx headers
#          compile-cost install uninstall consumers version-check expand clean;
#          nccl test-nccl sanitize-nccl bench-nccl (the optional NCCL layer: see its section).
#
# ARCH is a list: `make ARCH="sm_80 sm_90"` builds every program for both (a fatbin; each
# word compiles as -arch=<word> would: SASS for it, plus its PTX). Default: the
# architectures of the GPUs that nvidia-smi finds (sm_90 on an H100), else ARCH_NO_GPU,
# sm_90 alone: the architecture gpuprims is tuned and measured on, and one architecture
# keeps `make` on a 2-core machine without a GPU (CI) within budget (docs/building.md).

ARCH_NO_GPU ?= sm_90
ifeq ($(origin ARCH),undefined)
ARCH_FOUND := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                | sed -n 's/^ *\([0-9]*\)\.\([0-9]*\) *$$/sm_\1\2/p' | sort -u)
ARCH      := $(or $(ARCH_FOUND),$(ARCH_NO_GPU))
endif
NVCC      ?= nvcc
CC        ?= gcc
PYTHON    ?= python3
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR    ?= $(PREFIX)/share/doc/gpuprims
# The Python module (examples/python/gpuprims.py) goes beside the library, and a .pth file in
# $(PYTHON)'s site-packages puts its directory on that Python's path (PYTHON_SITE= skips it).
PYTHONDIR ?= $(LIBDIR)/gpuprims/python
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_path("purelib"))' 2>/dev/null)
BUILD     ?= build
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC)))
CUDA_LIBDIR ?= $(CUDA_HOME)/lib64
NPROC     := $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += --no-print-directory
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(NPROC)
endif

VERSION   := $(shell sed -n 's/^\#define GPUPRIMS_VERSION_STRING "\(.*\)"/\1/p' gpuprims.cuh)
COMMIT    ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# sm_XX -> SASS for sm_XX and PTX for compute_XX (what -arch=sm_XX means); other words
# (all, native) go to -arch as they are.
comma     := ,
arch_flag  = $(if $(filter sm_%,$1),-gencode arch=compute_$(1:sm_%=%)$(comma)code=$1 \
                -gencode arch=compute_$(1:sm_%=%)$(comma)code=compute_$(1:sm_%=%),-arch=$1)
ARCHFLAGS := $(foreach a,$(ARCH),$(call arch_flag,$a))
ARCH1     := $(firstword $(ARCH))

# -O sets only the host compiler's level: nvcc optimises device code fully whatever it says
# (the same SASS at -O1 and -O3). The library's launchers take -O2; the tests -O3, as their
# host references are most of a GPU run's time (make test on an H200: 194-228 s at -O3, 265
# at -O2, 260 at -O1); the examples, whose host code is small and quick, -O1 (docs/building.md).
HOST_OPT  ?= -O2
TESTS_HOST_OPT ?= -O3
EXAMPLES_HOST_OPT ?= -O1
NVCCFLAGS ?= -std=c++17 -lineinfo -Xcompiler -Wall,-Wextra
nvcc_at    = $(NVCC) $1 $(NVCCFLAGS) $(ARCHFLAGS)
NVCC_ALL   = $(call nvcc_at,$(HOST_OPT))
CFLAGS    ?= -O2 -std=c11 -Wall -Wextra -pedantic
DEPFLAGS   = -MMD -MP

# The library: the default instances, one family per TU (they compile in parallel).
LIB_OBJ   := $(patsubst lib/%.cu,$(BUILD)/lib/%.o,$(wildcard lib/*.cu))
LIB_A     := $(BUILD)/lib/libgpuprims.a
LIB_SO    := $(BUILD)/lib/libgpuprims.so

# tests/*.c[u] and each family's tests/<family>/test_*.cu (tests/nccl builds apart, below).
TEST_CU   := $(wildcard tests/*.cu) $(filter-out tests/nccl/%,$(wildcard tests/*/test_*.cu))
TEST_C    := $(wildcard tests/*.c)
TEST_OBJ  := $(TEST_CU:%.cu=$(BUILD)/%.o) $(TEST_C:%.c=$(BUILD)/%.c.o)
TESTS     := $(BUILD)/tests/run_tests
EXAMPLES  := $(patsubst examples/%.cu,$(BUILD)/examples/%,$(wildcard examples/*.cu))
# Each family's bench is bench/<family>/<family>.cu (its probes beside it are built by hand).
BENCH_SRC := $(foreach d,$(patsubst bench/%/,%,$(wildcard bench/*/)),$(wildcard bench/$d/$d.cu))
BENCHES   := $(patsubst bench/%.cu,$(BUILD)/bench/%,$(BENCH_SRC))

.PHONY: all lib test test-python sanitize bench bench-torch extras results plots examples run-examples ptx headers names names-check \
        compile-cost install uninstall consumers version-check expand clean nccl test-nccl sanitize-nccl bench-nccl

# Longest compiles first (the library), so both cores stay busy to the end. The benches
# (about a third of the compile time) only run on a GPU: `make bench` builds them.
all: lib $(TESTS) $(EXAMPLES)
extras: $(BENCHES) # and the stress program (tests/stress/stress.mk)

lib: $(LIB_A) $(LIB_SO)

# The library, tests and examples are built first, with the header and name checks.
test: all headers names-check
	$(TESTS)

# detail/names.txt lists every public name of the default instances, so grep finds them.
names:
	tools/names.sh "$(CC)" "$(CUDA_HOME)/include" > detail/names.txt
names-check:
	@tools/names.sh "$(CC)" "$(CUDA_HOME)/include" | diff -u detail/names.txt - \
	  || { echo "detail/names.txt is stale: run 'make names'"; exit 1; }

# examples/python/test_torch.py: the library through ctypes on torch tensors, against
# torch. Needs python3 with torch and a GPU; says "skipped" (status 0) without them.
test-python: $(LIB_SO)
	$(PYTHON) examples/python/test_torch.py $(LIB_SO)

# The GPU tests under the four compute-sanitizer tools, all at once (tools/sanitize.sh: smaller
# sizes, GP_TEST_SMALL=1, no 2^24 or 2^31 counts; racecheck, slow on shared memory, with fewer
# placements, GP_TEST_SMALL=2, split over RACE_SHARDS processes). The CUDA_CHK scenarios run
# in child processes that fail on purpose; they are not sanitized (application-only). The
# examples are prerequisites too: the tests run examples/errors and check what it prints.
SANITIZE = compute-sanitizer --error-exitcode 1 --target-processes application-only
sanitize: $(TESTS) $(EXAMPLES)
	bash tools/sanitize.sh $(TESTS) $(BUILD)/sanitize

# Each bench writes bench/results/<gpu>.<bench>.md/.csv; bench/results/<gpu>.md collects them
# (`make results` collects them again after a single bench was run by hand).
bench: $(BENCHES)
	@mkdir -p bench/results
	@for b in $(BENCHES); do GP_COMMIT=$(COMMIT) $$b || exit 1; done
	@$(MAKE) results
# make bench-torch: gpuprims against PyTorch on the same GPU (bench/torch/vs_torch.py; needs
# python3 with torch and a GPU, says "skipped" without them). Not part of `make bench`.
bench-torch: $(LIB_SO)
	@mkdir -p bench/results
	GP_COMMIT=$(COMMIT) $(PYTHON) bench/torch/vs_torch.py $(LIB_SO)
	@$(MAKE) results
# make bench-<family>: one family's bench (bench-scan, bench-select), then the results page.
# (The binary's path names the family twice: a pattern replaces only its first %, hence $$*.)
.SECONDEXPANSION:
bench-%: $$(BUILD)/bench/$$*/$$*
	@mkdir -p bench/results
	GP_COMMIT=$(COMMIT) $<
	@$(MAKE) results
results:
	@for gpu in $$(ls bench/results/*.*.md | sed -E 's|bench/results/([^.]*)\..*|\1|' | sort -u); do \
	  { echo "# gpuprims benchmarks: $$gpu"; echo; echo "Assembled by \`make results\` (at $(COMMIT)) from the per-bench tables beside this file; each section names the GPU, date and commit of its own run."; \
	    for f in bench/results/$$gpu.*.md; do echo; cat $$f; done; } > bench/results/$$gpu.md; \
	  echo "wrote bench/results/$$gpu.md"; done

# PNGs beside the CSVs: bench/results/<gpu>.<bench>.png for every <gpu>.<bench>.csv. Uses
# python3's matplotlib if it has one, else installs bench/requirements.txt into $(BUILD)/venv.
plots:
	@if $(PYTHON) -c 'import matplotlib' 2>/dev/null; then py=$(PYTHON); \
	 else $(MAKE) $(BUILD)/venv/ok && py=$(BUILD)/venv/bin/python; fi; \
	 $$py bench/plot.py bench/results
$(BUILD)/venv/ok: bench/requirements.txt
	$(PYTHON) -m venv $(BUILD)/venv
	$(BUILD)/venv/bin/pip install --quiet -r bench/requirements.txt
	touch $@

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

# Every header compiles as a translation unit on its own (it includes what it uses), and
# gpuprims.cuh also compiles as plain C (only the host API is visible there). Each check is
# done again when its header or one it includes changes (its .d file), and only then.
DETAIL_H  := $(wildcard detail/*.cuh detail/*/*.cuh)
HEADER_OK := $(patsubst detail/%.cuh,$(BUILD)/headers/%.ok,$(DETAIL_H)) $(BUILD)/headers/gpuprims_c.ok
headers: $(HEADER_OK)
$(BUILD)/headers/%.ok: detail/%.cuh
	@mkdir -p $(@D)
	@echo '#include "detail/$*.cuh"' > $(@:.ok=.cu)
	$(NVCC) -std=c++17 -arch=$(ARCH1) -Xcompiler -Wall,-Wextra -MMD -MP -MF $(@:.ok=.d) -MT $@ -I. -c $(@:.ok=.cu) -o /dev/null
	@touch $@
$(BUILD)/headers/gpuprims_c.ok: gpuprims.cuh $(DETAIL_H)
	@mkdir -p $(@D)
	echo '#include "gpuprims.cuh"' | $(CC) $(CFLAGS) -I. -I$(CUDA_HOME)/include -x c -c - -o /dev/null
	@touch $@

# Compile time of a TU with one device reduce and scan, gpuprims against CUB (CPU only, no
# GPU). Writes $(BUILD)/compile_cost.md; bench/results/compile_cost.md is a copy of one run.
compile-cost:
	@mkdir -p $(BUILD)
	@bash bench/compile_cost/measure.sh "$(NVCC_ALL)" | tee $(BUILD)/compile_cost.md
	@echo "wrote $(BUILD)/compile_cost.md"

# Headers (#include <gpuprims/gpuprims.cuh>), libgpuprims.a and .so, a CMake package
# (find_package(gpuprims CONFIG): gpuprims::headers, gpuprims::gpuprims), gpuprims.pc, the
# Python module (PYTHONDIR, and gpuprims.pth in PYTHON_SITE), and LICENSE, README.md,
# CHANGELOG.md and docs/ under share/doc/gpuprims. The CMake package records ARCH, the
# architectures the library was built for (consumers that choose none get them).
# `make uninstall` with the same PREFIX (and DESTDIR, PYTHON_SITE) removes exactly these files.
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
             -e 's|@VERSION@|$(VERSION)|' -e 's|@CUDA_HOME@|$(CUDA_HOME)|' -e 's|@CUDA_LIBDIR@|$(CUDA_LIBDIR)|' \
             -e 's|@CUDA_ARCHITECTURES@|$(subst $() ,;,$(strip $(patsubst sm_%,%,$(filter sm_%,$(ARCH)))))|'
INSTALLED := $(INCLUDEDIR)/gpuprims $(LIBDIR)/libgpuprims.a $(LIBDIR)/libgpuprims.so \
             $(LIBDIR)/cmake/gpuprims $(LIBDIR)/pkgconfig/gpuprims.pc $(DOCDIR) $(LIBDIR)/gpuprims \
             $(if $(PYTHON_SITE),$(PYTHON_SITE)/gpuprims.pth)
install: lib
	install -d $(addprefix $(DESTDIR)$(INCLUDEDIR)/gpuprims/,$(sort $(dir $(DETAIL_H)))) $(DESTDIR)$(LIBDIR)/cmake/gpuprims \
	    $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(PYTHONDIR)
	install -m 644 gpuprims.cuh gpuprims_nccl.cuh $(DESTDIR)$(INCLUDEDIR)/gpuprims/
	for d in $(sort $(dir $(DETAIL_H))); do install -m 644 $$d*.cuh $(DESTDIR)$(INCLUDEDIR)/gpuprims/$$d; done
	install -m 644 LICENSE README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/
	install -m 644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	$(SUBST) cmake/gpuprims-config.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/gpuprims/gpuprims-config.cmake
	$(SUBST) cmake/gpuprims-config-version.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/gpuprims/gpuprims-config-version.cmake
	install -m 644 cmake/gpuprims-arch.cmake $(DESTDIR)$(LIBDIR)/cmake/gpuprims/
	$(SUBST) gpuprims.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/gpuprims.pc
	sed -e 's|^INSTALLED_LIB = None|INSTALLED_LIB = "$(LIBDIR)/libgpuprims.so"|' examples/python/gpuprims.py \
	    > $(DESTDIR)$(PYTHONDIR)/gpuprims.py
	@if [ -n "$(PYTHON_SITE)" ]; then install -d $(DESTDIR)$(PYTHON_SITE) && \
	   echo '$(PYTHONDIR)' > $(DESTDIR)$(PYTHON_SITE)/gpuprims.pth && \
	   echo "python: $(PYTHON_SITE)/gpuprims.pth puts $(PYTHONDIR) on $(PYTHON)'s path: import gpuprims"; \
	 else echo "python: no site-packages for '$(PYTHON)': PYTHONPATH=$(PYTHONDIR) to import gpuprims"; fi
	@echo "installed gpuprims $(VERSION) under $(DESTDIR)$(PREFIX) for $(ARCH): #include <gpuprims/gpuprims.cuh> with -I$(INCLUDEDIR);"
	@echo "  link: pkg-config --cflags --libs gpuprims (the static library), or CMake find_package(gpuprims CONFIG REQUIRED)"
uninstall:
	rm -rf $(addprefix $(DESTDIR),$(INSTALLED))

# The ways to use the package, each built by its documented line and run, without
# LD_LIBRARY_PATH, to its "no CUDA GPU found" (or, with a GPU, to its result): pkg-config
# with gcc and nvcc (static, and the shared library's line), plain nvcc -I with
# GPUPRIMS_IMPLEMENTATION, the installed CMake package, add_subdirectory, and the installed
# Python module imported from elsewhere (in a venv). Needs cmake (3.18+), pkg-config, python3.
consumers: lib
	+bash tests/consumers/run.sh $(BUILD)/consumers "$(NVCC)" "$(ARCH1)" "$(PYTHON)"

# GPUPRIMS_VERSION_* in gpuprims.cuh agree with each other, with the newest CHANGELOG.md
# entry, and with the git tags where there are any.
version-check:
	@bash .ci/version-check

# Read what the macros generate: make expand F=tests/reduce/test_reduce_user.cu. Prints the
# preprocessed F without the headers' expansion, formatted (needs clang-format); then
# compiles F, and fails with the compiler's errors if it does not compile.
EXPAND_FLAGS = -std=c++17 -arch=$(ARCH1) -I.
expand:
	@test -n "$(F)" || { echo "usage: make expand F=file.cu" >&2; exit 2; }
	@command -v clang-format >/dev/null || { echo "make expand needs clang-format" >&2; exit 2; }
	@mkdir -p $(BUILD)
	@$(NVCC) $(EXPAND_FLAGS) -E $(F) -o $(BUILD)/expand.ii
	@awk -v f="$(F)" 'BEGIN { sub(/^\.\//, "", f) } /^# [0-9]+ "/ { n = $$3; gsub(/"/, "", n); sub(/^\.\//, "", n); mine = (n == f); next } \
	     mine && !/^#/' $(BUILD)/expand.ii | clang-format --style='{BasedOnStyle: LLVM, ColumnLimit: 110}'
	@$(NVCC) $(EXPAND_FLAGS) -c $(F) -o /dev/null || { echo "make expand: $(F) does not compile (errors above)" >&2; exit 1; }

clean:
	rm -rf $(BUILD)

# Objects remember the architectures they were built for: another ARCH (or a GPU found where
# there was none) rebuilds them. The stamp changes only when ARCHFLAGS do.
ARCH_STAMP := $(BUILD)/arch.txt
$(ARCH_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(ARCHFLAGS)' | cmp -s - $@ || echo '$(ARCHFLAGS)' > $@
FORCE:
$(LIB_OBJ) $(filter-out %.c.o,$(TEST_OBJ)) $(EXAMPLES:%=%.o) $(BENCHES:%=%.o) $(HEADER_OK): \
    $(ARCH_STAMP)

# ---- build rules ----------------------------------------------------------------------

$(BUILD)/lib/%.o: lib/%.cu
	@mkdir -p $(@D)
	$(NVCC_ALL) -Xcompiler -fPIC $(DEPFLAGS) -I. -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The CUDA runtime is linked in statically (nvcc's default) and kept private: the .so
# exports only gp_* (lib/exports.map) and needs only the driver and the C++ runtime.
$(LIB_SO): $(LIB_OBJ) lib/exports.map
	$(NVCC_ALL) -shared -Xlinker --version-script=lib/exports.map $(LIB_OBJ) -o $@

$(TESTS): $(TEST_OBJ) $(LIB_A)
	$(NVCC_ALL) $^ -o $@ -ldl

# The list of test entry points, written by no one: every `void test_<name>(void)` that a
# test file defines at the start of a line (tests/main.c includes it).
TEST_LIST := $(BUILD)/tests/list.h
$(TEST_LIST): $(TEST_CU) $(TEST_C)
	@mkdir -p $(@D)
	@grep -hoE '^(extern "C" )?void test_[a-z0-9_]+\(void\)' $(filter-out tests/main.c,$^) \
	  | sed -E 's/.*void (test_[a-z0-9_]+).*/T(\1)/' > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
$(BUILD)/tests/main.c.o: $(TEST_LIST)
$(BUILD)/tests/main.c.o: CFLAGS += -I$(BUILD)/tests

# make test-<family>: the tests whose entry point names the family (test-scan, test-select).
test-%: all
	GP_TEST_ONLY=$* $(TESTS)
# make sanitize-<family>: one family's GPU tests under the four compute-sanitizer tools.
sanitize-%: $(TESTS)
	$(MAKE) sanitize GP_TEST_ONLY=$*

$(BUILD)/tests/%.o: tests/%.cu
	@mkdir -p $(@D)
	$(call nvcc_at,$(TESTS_HOST_OPT)) $(DEPFLAGS) $(TEST_DEFS) -I. -c $< -o $@

# The tests that run the compiler keep each compile's status and output in T_CACHE
# (gp_t_run_cached), so that a second `make test` compiles again only what changed.
T_CACHE   := -DGP_T_CACHE='"$(abspath $(BUILD))/tests/cache"'

# tests/test_examples.cu runs nvcc on examples/ptx.cu and runs the built examples.
$(BUILD)/tests/test_examples.o: TEST_DEFS = $(T_CACHE) -DGP_T_NVCC='"$(NVCC)"' -DGP_T_ARCH='"$(ARCH1)"' \
    -DGP_T_ROOT='"$(CURDIR)"' -DGP_T_EXAMPLES='"$(abspath $(BUILD))/examples"'

# tests/test_readme.cu compiles the README's first example against the library.
$(BUILD)/tests/test_readme.o: TEST_DEFS = $(T_CACHE) -DGP_T_NVCC='"$(NVCC)"' -DGP_T_ARCH='"$(ARCH1)"' \
    -DGP_T_ROOT='"$(CURDIR)"' -DGP_T_LIB='"$(abspath $(LIB_A))"'

# tests/test_compile_errors.cu compiles the files of tests/compile_errors/, which must fail.
$(BUILD)/tests/test_compile_errors.o: TEST_DEFS = $(T_CACHE) -DGP_T_NVCC='"$(NVCC)"' -DGP_T_ARCH='"$(ARCH1)"' \
    -DGP_T_ROOT='"$(CURDIR)"' -DGP_T_CC='"$(CC)"' -DGP_T_CUDA_INC='"$(CUDA_HOME)/include"'

# tests/status/test_launch_count.cu loads CUPTI from the toolkit (or the loader's path).
$(BUILD)/tests/status/test_launch_count.o: TEST_DEFS = -DGP_T_CUPTI='"$(CUDA_LIBDIR)/libcupti.so"'

$(BUILD)/tests/%.c.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -I. -I$(CUDA_HOME)/include -c $< -o $@

# Programs compile to objects while the library builds, and link against libgpuprims.a.
$(BUILD)/examples/%.o: examples/%.cu
	@mkdir -p $(@D)
	$(call nvcc_at,$(EXAMPLES_HOST_OPT)) $(DEPFLAGS) -I. -c $< -o $@

$(BUILD)/examples/%: $(BUILD)/examples/%.o $(LIB_A)
	$(NVCC_ALL) $^ -o $@

$(BUILD)/examples/%.ptx: examples/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -arch=$(ARCH1) -I. -ptx $< -o $@

$(BUILD)/bench/%.o: bench/%.cu
	@mkdir -p $(@D)
	$(NVCC_ALL) $(DEPFLAGS) -I. -c $< -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB_A)
	$(NVCC_ALL) $^ -o $@ -lcublas

# ---- the NCCL layer (optional) --------------------------------------------------------
# gpuprims_nccl.cuh and what uses it: libgpuprims_nccl.a (its default instances), the
# test (one thread per GPU, then one rank), the example and the weak-scaling bench. Nothing
# else in this Makefile needs NCCL. NCCL comes from NCCL_HOME (include/ and lib/); by
# default the system's (/usr/include/nccl.h), else the CUDA toolkit's tree, else the
# nvidia-nccl-cu13 wheel, which tools/nccl-wheel.sh installs from PyPI into $(BUILD)/nccl.
# NVLink multicast (NVLS) stays off: the runs set NCCL_NVLS_ENABLE=0.
NCCL_HOME   ?= $(firstword $(foreach d,/usr $(CUDA_HOME),$(if $(wildcard $(d)/include/nccl.h),$(d))) $(abspath $(BUILD))/nccl)
NCCL_LIBDIR ?= $(firstword $(foreach d,$(NCCL_HOME)/lib/x86_64-linux-gnu $(NCCL_HOME)/lib/aarch64-linux-gnu \
                 $(NCCL_HOME)/lib64 $(NCCL_HOME)/lib,$(if $(wildcard $(d)/libnccl.so*),$(d))) $(NCCL_HOME)/lib)
NCCL_INC    := $(if $(filter /usr,$(NCCL_HOME)),,-I$(NCCL_HOME)/include)
NCCL_LINK    = -L$(NCCL_LIBDIR) -Xlinker -rpath=$(NCCL_LIBDIR) -lnccl -lpthread
NCCL_WHEEL  := $(if $(filter $(abspath $(BUILD))/nccl,$(NCCL_HOME)),$(BUILD)/nccl/ok)
NCCL_LIB_A  := $(BUILD)/lib/libgpuprims_nccl.a
NCCL_TEST   := $(BUILD)/tests/nccl/test_nccl
NCCL_PROGS  := $(NCCL_TEST) $(BUILD)/examples/nccl/shards $(BUILD)/bench/nccl/scaling
NCCL_RUN     = NCCL_NVLS_ENABLE=0

nccl: $(NCCL_LIB_A) $(NCCL_PROGS) $(BUILD)/headers/gpuprims_nccl.ok
# Every GPU of the machine, then a one-rank communicator (the test does both).
test-nccl: nccl
	$(NCCL_RUN) $(NCCL_TEST)
# memcheck with small sizes (GP_TEST_SMALL=1), as `make sanitize` does for the core.
# NCCL's own failed-and-handled API calls (cudaErrorPeerAccessAlreadyEnabled at setup)
# are not reported. NCCL_CUMEM_ENABLE=0: NCCL then maps its peers' buffers with CUDA IPC,
# which memcheck tracks; through its cuMem mappings a bad access shows only as an address
# in no allocation. On two H200s (NCCL 2.28.3) the whole test runs clean.
sanitize-nccl: nccl
	$(NCCL_RUN) NCCL_CUMEM_ENABLE=0 GP_TEST_SMALL=1 $(SANITIZE) --report-api-errors no --tool memcheck $(NCCL_TEST)
bench-nccl: nccl
	@mkdir -p bench/results
	$(NCCL_RUN) GP_COMMIT=$(COMMIT) $(BUILD)/bench/nccl/scaling

$(BUILD)/nccl/ok: tools/nccl-wheel.sh
	bash tools/nccl-wheel.sh $(BUILD)/nccl

$(BUILD)/lib/nccl/%.o: lib/nccl/%.cu $(NCCL_WHEEL)
	@mkdir -p $(@D)
	$(NVCC_ALL) $(NCCL_INC) -Xcompiler -fPIC $(DEPFLAGS) -I. -c $< -o $@
$(NCCL_LIB_A): $(BUILD)/lib/nccl/nccl.o
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/tests/nccl/%.o: tests/nccl/%.cu $(NCCL_WHEEL)
	@mkdir -p $(@D)
	$(NVCC_ALL) $(NCCL_INC) $(DEPFLAGS) -I. -c $< -o $@
$(BUILD)/examples/nccl/%.o: examples/nccl/%.cu $(NCCL_WHEEL)
	@mkdir -p $(@D)
	$(NVCC_ALL) $(NCCL_INC) $(DEPFLAGS) -I. -c $< -o $@
$(BUILD)/bench/nccl/%.o: bench/nccl/%.cu $(NCCL_WHEEL)
	@mkdir -p $(@D)
	$(NVCC_ALL) $(NCCL_INC) $(DEPFLAGS) -I. -c $< -o $@
$(NCCL_TEST): $(BUILD)/tests/nccl/test_nccl.o $(BUILD)/tests/harness.c.o $(NCCL_LIB_A) $(LIB_A)
	$(NVCC_ALL) $^ -o $@ $(NCCL_LINK)
$(BUILD)/examples/nccl/%: $(BUILD)/examples/nccl/%.o $(NCCL_LIB_A) $(LIB_A)
	$(NVCC_ALL) $^ -o $@ $(NCCL_LINK)
$(BUILD)/bench/nccl/%: $(BUILD)/bench/nccl/%.o $(NCCL_LIB_A) $(LIB_A)
	$(NVCC_ALL) $^ -o $@ $(NCCL_LINK)
# The header compiles alone, as CUDA and as C (declarations only).
$(BUILD)/headers/gpuprims_nccl.ok: gpuprims_nccl.cuh gpuprims.cuh $(DETAIL_H) $(NCCL_WHEEL)
	@mkdir -p $(@D)
	@echo '#include "gpuprims_nccl.cuh"' > $(BUILD)/headers/gpuprims_nccl.cu
	$(NVCC) -std=c++17 -arch=$(ARCH1) -Xcompiler -Wall,-Wextra $(NCCL_INC) -I. -c $(BUILD)/headers/gpuprims_nccl.cu -o /dev/null
	echo '#include "gpuprims_nccl.cuh"' | $(CC) $(CFLAGS) $(NCCL_INC) -I. -I$(CUDA_HOME)/include -x c -c - -o /dev/null
	@touch $@

# Keep the programs' objects (make would delete them as intermediates).
.SECONDARY:

include tests/stress/stress.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
