# tests/stress/stress.mk -- `make stress`: the randomized stress and fault suite (GPU,
# about 5 minutes; STRESS_SECONDS=60 for a short run), then the status-memory tests with
# more rounds (16 host threads on 16 shared streams, streams re-created 960 times). Without a GPU it builds and every
# section is skipped. `make stress-memcheck`: a short run under compute-sanitizer memcheck
# (the child processes that fault or fill the GPU on purpose are not sanitized).
# The program links like the tests: the library of default instances, and the harness.
STRESS         := $(BUILD)/tests/stress
STRESS_SECONDS ?= 300

.PHONY: stress stress-memcheck
extras: $(STRESS) # built by `make extras` (and CI), so a break shows there
stress: $(STRESS) $(TESTS)
	STRESS_SECONDS=$(STRESS_SECONDS) $(STRESS)
	GP_TEST_STRESS=1 GP_TEST_ONLY=status $(TESTS)

stress-memcheck: $(STRESS)
	STRESS_SECONDS=20 STRESS_HANG_S=600 $(SANITIZE) --tool memcheck --leak-check full $(STRESS)

# stress.cu and the families' files beside it (families.h), one object each.
STRESS_OBJ     := $(patsubst tests/stress/%.cu,$(BUILD)/stress/%.o,$(wildcard tests/stress/*.cu))
$(STRESS): $(STRESS_OBJ) $(BUILD)/tests/harness.c.o $(LIB_A)
	$(NVCC_ALL) $^ -o $@

$(STRESS_OBJ): $(BUILD)/stress/%.o: tests/stress/%.cu $(ARCH_STAMP)
	@mkdir -p $(@D)
	$(NVCC_ALL) $(DEPFLAGS) -I. -c $< -o $@
