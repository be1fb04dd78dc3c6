# smtop build.  `make` builds build/smtop, build/libsmtop-inject.so and the demo
# workloads; `make test` builds and runs the CPU test suite; `make test-gpu`
# runs the GPU tests (on a machine with an NVIDIA GPU); `make bench` prints
# the benchmark table.
CUDA_HOME ?= /usr/local/cuda
CC ?= cc
NVCC ?= $(CUDA_HOME)/bin/nvcc
NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
B ?= build
PKGS := ncursesw sqlite3

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CUPTI_INC := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include) $(CUDA_HOME)/include)
CUPTI_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/lib64) $(CUDA_HOME)/lib64)
# The Compute Sanitizer API headers (the --sm all backend): the toolkit's own,
# else Debian's nvidia-cuda-toolkit, else the copy `make deps` fetches.  Looked
# up when a recipe runs (recursive variables), so that what `make deps` fetched
# earlier in the same make (make test) counts.  Without them the collector is
# built without its sanitizer backend (-DSMTOP_HAVE_SANITIZER unset) and smtop
# refuses --sm all in one line.
SANITIZER_INC ?= $(patsubst %/sanitizer.h,%,$(firstword $(wildcard \
	$(CUDA_HOME)/compute-sanitizer/include/sanitizer.h \
	/usr/lib/nvidia-cuda-toolkit/compute-sanitizer/include/sanitizer.h \
	.deps/compute-sanitizer/include/sanitizer.h)))
HAVE_SANITIZER = $(wildcard $(SANITIZER_INC)/sanitizer.h)
SZ_DEFINE = $(if $(HAVE_SANITIZER),-DSMTOP_HAVE_SANITIZER)
SZ_CFLAGS = $(if $(HAVE_SANITIZER),-DSMTOP_HAVE_SANITIZER -isystem $(SANITIZER_INC))

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -fPIC -I. -I$(CUDA_HOME)/include -I$(CUPTI_INC) $(PKG_CFLAGS)
LDLIBS_BASE := -lpthread -ldl -lm
SAN ?=
CFLAGS += $(SAN)

# Builds use every core unless told otherwise (make -j1 ...): on the 2-core
# VM that halves the builds of make test (the normal one, the sanitizers').
# (Only at the top: a sub-make shares its parent's job slots.)
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# Commands print only with V=1; otherwise links and CUDA builds say one
# short line each, and compiles nothing.
V ?= 0
export V # the test scripts print each passing check only with V=1
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-5s %s\n'
endif
LDFLAGS += $(SAN)

# The floors (docs/architecture.md), each an archive: app -> ui -> session ->
# db -> core, and collectors -> db -> core.
CORE_SRC := $(wildcard src/core/*.c)
DB_SRC := $(wildcard db/*.c)
SESSION_SRC := $(wildcard db/session/*.c)
UI_SRC := $(wildcard ui/*.c)
APP_SRC := $(filter-out ui/app/main.c,$(wildcard ui/app/*.c))
COLL_SRC := $(wildcard collectors/*.c)
obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

CORE_OBJ := $(call obj,$(CORE_SRC))
DB_OBJ := $(call obj,$(DB_SRC))
SESSION_OBJ := $(call obj,$(SESSION_SRC))
UI_OBJ := $(call obj,$(UI_SRC))
APP_OBJ := $(call obj,$(APP_SRC))
COLL_OBJ := $(call obj,$(COLL_SRC))

# The block-trace ABI: the floor below both the collector and the demos.
TRACE_HDR := src/core/smtop_trace.cuh src/core/smtop_trace_abi.h
KERNEL_SRC := $(wildcard kernels/*_main.cu)
KERNEL_BIN := $(patsubst kernels/%_main.cu,$(B)/%,$(KERNEL_SRC))
KERNEL_LIB_SRC := $(filter-out $(KERNEL_SRC),$(wildcard kernels/*.cu))

TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRC))
SUPPORT_OBJ := $(call obj,$(wildcard tests/support/*.c))

.PHONY: gpu-programs cubin-fixtures all deps test test-unit test-e2e test-gpu bench run clean screenshots
all: deps-check $(B)/smtop $(B)/libsmtop-inject.so $(B)/smtop-patches.fatbin $(KERNEL_BIN)

deps-check:
	@.ci/deps --check

# Where deps runs too (make test, make run), the check waits for it: the
# builds run in parallel.
ifneq ($(filter deps test run,$(MAKECMDGOALS)),)
deps-check: deps
endif

deps:
	@.ci/deps

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Only the collector (and its tests) see the sanitizer's headers; the table
# of --sm modes (src/core/sm_modes.c) only whether the backend is built.
# $(B)/sanitizer-mode changes (and rebuilds them) only when the headers come
# or go.
$(B)/obj/collectors/%.o: CFLAGS += $(SZ_CFLAGS)
$(B)/tests/test_collector: CFLAGS += $(SZ_CFLAGS)
$(call obj,src/core/sm_modes.c): CFLAGS += $(SZ_DEFINE)
$(COLL_OBJ) $(call obj,src/core/sm_modes.c) $(B)/tests/test_collector: $(B)/sanitizer-mode
$(B)/sanitizer-mode: FORCE
	@mkdir -p $(dir $@)
	@echo "$(if $(HAVE_SANITIZER),with,without) $(SANITIZER_INC)" | cmp -s - $@ || \
		echo "$(if $(HAVE_SANITIZER),with,without) $(SANITIZER_INC)" > $@
.PHONY: FORCE
FORCE:

# The commit the tree was built from, for smtop --version and the sessions
# it records; $(B)/build-id changes (and rebuilds version.o) only when it does.
BUILD_ID := $(shell git describe --always --dirty --abbrev=12 2>/dev/null)
$(call obj,src/core/version.c): CFLAGS += -DSMTOP_BUILD_ID='"$(BUILD_ID)"'
$(call obj,src/core/version.c): $(B)/build-id
$(B)/build-id: FORCE
	@mkdir -p $(dir $@)
	@echo "$(BUILD_ID)" | cmp -s - $@ || echo "$(BUILD_ID)" > $@

# The block patches of the Compute Sanitizer backend, loaded at run time from
# beside libsmtop-inject.so (one SASS per architecture: patches are not JIT'd).
PATCH_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_100,code=sm_100 -gencode arch=compute_120,code=sm_120
PATCH_NVCC = $(NVCC) $(PATCH_ARCH) -I. -isystem $(SANITIZER_INC) --fatbin --keep-device-functions \
	-Xptxas --compile-as-tools-patch
# Without the headers there is no backend to load them: nothing to build.
$(B)/smtop-patches.fatbin: collectors/sanitizer_patch.cu $(TRACE_HDR)
	@mkdir -p $(dir $@)
	$(if $(HAVE_SANITIZER),$(say) NVCC $@,)
	$(if $(HAVE_SANITIZER),$(Q)$(PATCH_NVCC) -o $@ $<,@rm -f $@)

$(B)/libsmtop-core.a: $(CORE_OBJ)
$(B)/libsmtop-db.a: $(DB_OBJ)
$(B)/libsmtop-session.a: $(SESSION_OBJ)
$(B)/libsmtop-ui.a: $(UI_OBJ)
$(B)/libsmtop-app.a: $(APP_OBJ)
$(B)/libsmtop-coll.a: $(COLL_OBJ)
$(B)/%.a:
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Highest floor first and no --start-group: a call from a floor to one above
# it does not link, so the link order itself checks the layering.
APP_LIBS := $(B)/libsmtop-app.a $(B)/libsmtop-ui.a $(B)/libsmtop-session.a $(B)/libsmtop-db.a $(B)/libsmtop-core.a

$(B)/smtop: $(call obj,ui/app/main.c) $(APP_LIBS)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(APP_LIBS) $(PKG_LIBS) $(LDLIBS_BASE)

# The collector lives inside the workload's process: it needs CUPTI and SQLite,
# never ncurses.  libcuda is reached through dlopen at run time.
$(B)/libsmtop-inject.so: $(COLL_OBJ) $(B)/libsmtop-db.a $(B)/libsmtop-core.a collectors/inject.map
	$(say) LD $@
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,--version-script=collectors/inject.map -Wl,-z,defs -o $@ $(COLL_OBJ) $(B)/libsmtop-db.a $(B)/libsmtop-core.a \
		-L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -Wl,-rpath,/usr/local/cuda/lib64 \
		-lcupti -lsqlite3 $(LDLIBS_BASE)

$(B)/kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh kernels/*.h) $(TRACE_HDR)
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(NVCC) -O3 -std=c++17 $(NVCC_ARCH) -I. -Xcompiler -fPIC -c $< -o $@

$(B)/%: $(B)/kernels/%_main.o $(patsubst kernels/%.cu,$(B)/kernels/%.o,$(KERNEL_LIB_SRC))
	$(say) LD $@
	$(Q)$(NVCC) $(NVCC_ARCH) -o $@ $^ -lpthread

# Each suite links the module libraries; Criterion runs it.
$(B)/tests/test_%: tests/test_%.c $(SUPPORT_OBJ) $(APP_LIBS) $(B)/libsmtop-coll.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SUPPORT_OBJ) $(B)/libsmtop-coll.a $(APP_LIBS) \
		-L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti \
		-lcriterion $(PKG_LIBS) $(LDLIBS_BASE)

# A stand-in libcuda.so.1 for the block lanes' suite (tests/support/libcuda).
FAKE_LIBCUDA := $(B)/tests/libcuda/libcuda.so.1
$(FAKE_LIBCUDA): tests/support/libcuda/fake_libcuda.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libcuda.so.1 $(LDFLAGS) -o $@ $<
$(B)/tests/test_blocks: $(FAKE_LIBCUDA)
$(B)/tests/test_blocks: CFLAGS += -DFAKE_LIBCUDA='"$(abspath $(FAKE_LIBCUDA))"'

BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BIN := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRC))
# The drain benchmarks run the collector's pure parts.
$(B)/bench/bench_drain $(B)/bench/bench_entries $(B)/bench/bench_entry_rate: $(B)/bench/%: tests/bench/%.c $(SUPPORT_OBJ) $(APP_LIBS) $(B)/libsmtop-coll.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SUPPORT_OBJ) $(B)/libsmtop-coll.a $(APP_LIBS) \
		-L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti $(PKG_LIBS) $(LDLIBS_BASE)
$(B)/bench/%: tests/bench/%.c $(SUPPORT_OBJ) $(APP_LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SUPPORT_OBJ) $(APP_LIBS) $(PKG_LIBS) $(LDLIBS_BASE)

# Workloads the end-to-end scripts run (tests/e2e/*.c): the collector's
# writer without a GPU.
E2E_PROG_BIN := $(patsubst tests/e2e/%.c,$(B)/e2e/%,$(filter-out tests/e2e/fake_nvml.c,$(wildcard tests/e2e/*.c))) \
	$(B)/e2e/libfake_nvml.so
# A stand-in for the driver's NVML (SMTOP_NVML_LIB): the machine view's GPUs
# and processes without a GPU.
$(B)/e2e/libfake_nvml.so: tests/e2e/fake_nvml.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -shared $(LDFLAGS) -o $@ $<
$(B)/e2e/%: tests/e2e/%.c $(APP_LIBS) $(B)/libsmtop-coll.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libsmtop-coll.a $(APP_LIBS) \
		-L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti $(PKG_LIBS) $(LDLIBS_BASE)

# Every stage runs even when one before it failed; each adds its counts to
# $(SUMMARY), printed last (tests/summary.sh): one line per stage, then
# "N passed, N failed".
SUMMARY := $(abspath $(B))/test-summary.tsv
test: deps all $(TEST_BIN) $(E2E_PROG_BIN) $(B)/bench/gen_session
	@rm -f $(SUMMARY); export SMTOP_SUMMARY=$(SUMMARY); st=0; \
	if tests/layering.sh; then tests/summary.sh add unit 1 0; \
	else tests/summary.sh add unit 0 1; st=1; fi; \
	tests/run-all.sh $(TEST_BIN) || st=1; \
	$(MAKE) --no-print-directory test-asan || st=1; \
	$(MAKE) --no-print-directory test-valgrind || st=1; \
	$(MAKE) --no-print-directory fuzz-short || st=1; \
	tests/summary.sh print $(SUMMARY) || st=1; exit $$st

test-unit: all $(TEST_BIN)
	@tests/layering.sh
	@tests/run-all.sh --unit-only $(TEST_BIN)

# GPU-side test programs (run by make test-gpu on a machine with a GPU).
GPU_TEST_SRC := $(wildcard tests/gpu/*.cu)
GPU_TEST_BIN := $(patsubst tests/gpu/%.cu,$(B)/gpu/%,$(GPU_TEST_SRC))
$(B)/gpu/%: tests/gpu/%.cu $(wildcard kernels/*.cuh kernels/*.h tests/gpu/*.cuh) $(TRACE_HDR)
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(NVCC) -O2 -std=c++17 $(NVCC_ARCH) -I. $(GPU_NVCC_FLAGS) -o $@ $< -ldl -lpthread
# The one that opens the sanitizer itself (section late_sanitizer).
$(B)/gpu/late_sanitizer: GPU_NVCC_FLAGS = -isystem $(SANITIZER_INC)

# Patches that do nothing, to measure the sanitizer's own cost (section patch_cost).
$(B)/gpu/empty-patches.fatbin: tests/gpu/patches/empty.cu
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(PATCH_NVCC) -o $@ $<

# The module tests/gpu/module_churn.cu loads and unloads over and over.
$(B)/gpu/churn-module.fatbin: tests/gpu/modules/churn.cu
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(NVCC) $(NVCC_ARCH) --fatbin -o $@ $<

# A patch that counts its calls, for the sanitizer loaded late (section late_sanitizer).
$(B)/gpu/count-patches.fatbin: tests/gpu/patches/count.cu
	@mkdir -p $(dir $@)
	$(say) NVCC $@
	$(Q)$(PATCH_NVCC) -o $@ $<

gpu-programs: all $(GPU_TEST_BIN) $(B)/gpu/empty-patches.fatbin $(B)/gpu/churn-module.fatbin \
	$(B)/gpu/count-patches.fatbin

test-gpu: gpu-programs
	@tests/gpu/run.sh

# The cubins tests/test_marked_funcs.c reads, committed: remade only by hand
# (the separately compiled one as nvlink leaves it for the driver).
CUBIN_FX := tests/fixtures/cubin
cubin-fixtures: $(CUBIN_FX)/marks.cu $(TRACE_HDR)
	@mkdir -p $(B)
	$(NVCC) -I. -arch=sm_90 -cubin -o $(CUBIN_FX)/marks.cubin $<
	$(NVCC) -I. -arch=sm_90 -rdc=true -DSMTOP_TRACE_DEFINE -cubin -o $(B)/marks-rdc-unlinked.cubin $<
	$(CUDA_HOME)/bin/nvlink -arch=sm_90 -o $(CUBIN_FX)/marks-rdc.cubin $(B)/marks-rdc-unlinked.cubin

# Session sizes of the bench table; 1G needs about 9 GB of disk and minutes.
BENCH_SIZES ?= 10M 100M
bench: all $(BENCH_BIN)
	@BENCH_SIZES="$(BENCH_SIZES)" tests/bench/run.sh $(BENCH_BIN)

run: deps all
	@$(B)/smtop $(ARGS)

screenshots: all
	@tests/e2e/screenshots.sh

clean:
	rm -rf $(B)

# ---- fuzzing, sanitizers, valgrind (docs/testing.md) ----
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
FUZZ_SUPPORT_OBJ := $(call obj,tests/fuzz/support.c)
# A harness links libFuzzer (FUZZ_ENGINE=-fsanitize=fuzzer, with clang) or
# by default a main that replays the files and folders it is given.
FUZZ_ENGINE ?= $(call obj,tests/fuzz/replay.c)
FUZZ_SECONDS ?= 60
FUZZ_SHORT_SECONDS ?= 10
FUZZ_B ?= build-fuzz
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_B ?= build-asan
ASAN_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SUPPORT_OBJ) $(filter %.o,$(FUZZ_ENGINE)) $(APP_LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_SUPPORT_OBJ) $(FUZZ_ENGINE) \
		$(APP_LIBS) $(PKG_LIBS) $(LDLIBS_BASE)

.SECONDARY: $(SUPPORT_OBJ) $(FUZZ_SUPPORT_OBJ) $(call obj,tests/fuzz/replay.c)
# the CUDA objects too: make would delete them after the link, and say so
# after make test's closing summary
.SECONDARY: $(patsubst kernels/%.cu,$(B)/kernels/%.o,$(KERNEL_SRC) $(KERNEL_LIB_SRC))

# What the CPU tests run, without the CUDA programs (nvcc cannot sanitize).
.PHONY: cpu-programs fuzz-programs fuzz fuzz-short test-asan test-valgrind
cpu-programs: $(B)/smtop $(B)/libsmtop-inject.so $(TEST_BIN) $(FUZZ_BIN)
fuzz-programs: $(FUZZ_BIN)

# Every suite, the end-to-end scripts and the fuzz inputs, built with gcc's
# AddressSanitizer and UndefinedBehaviorSanitizer into $(ASAN_B).
test-asan:
	@CFLAGS="-O1 -g" $(MAKE) --no-print-directory B=$(ASAN_B) SAN="$(ASAN_SAN)" cpu-programs
	@tests/asan.sh $(ASAN_B)

# The end-to-end scripts with build/smtop under valgrind's memcheck.
test-valgrind: $(B)/smtop $(B)/libsmtop-inject.so
	@tests/valgrind.sh $(B)

# libFuzzer: each harness for FUZZ_SECONDS (clang needed).
fuzz:
	@CFLAGS="-O1 -g" $(MAKE) --no-print-directory B=$(FUZZ_B) CC=clang SAN="$(FUZZ_SAN)" \
		FUZZ_ENGINE=-fsanitize=fuzzer fuzz-programs
	@tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_SECONDS)

# make test: each harness for FUZZ_SHORT_SECONDS when clang is here.
fuzz-short:
	@if command -v clang >/dev/null; then $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS); \
	else echo "fuzz: clang not installed, harnesses only replayed (make test-asan)"; \
		tests/summary.sh add fuzz 0 0; fi

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
