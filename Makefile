# sfdo - sample-based feedback-directed optimization for GCC.
#
#   make            build every tool and the plugin into build/
#   make check      install missing Debian packages, build, run every test
#   make demo       install, build, run the pipeline on examples/demo.c
#   make bench      the benchmarks in bench/ (long; writes bench/RESULTS.md)
#   make install    PREFIX=/usr/local DESTDIR= ; the plugin goes to GCC's
#                   plugin directory (gcc -print-file-name=plugin)

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
SPECDIR  ?= $(PREFIX)/lib/sfdo
CC       ?= gcc
CXX      ?= g++
HOST_GCC ?= gcc
FUZZ_CC  ?= clang
FUZZ_SECONDS ?= 30
VERSION  := 0.1.0

B        := build
WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE $(WARN) -DSFDO_VERSION='"$(VERSION)"'
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer -O1 -g

PLUGIN_DIR := $(shell $(HOST_GCC) -print-file-name=plugin)

COMMON_SRC  := common/error.c common/xalloc.c common/u64map.c common/outfile.c \
               common/path.c
PROFILE_SRC := profiles/profile.c profiles/profile_text.c \
               profiles/profile_binary.c profiles/profile_ops.c \
               profiles/profile_io.c profiles/profile_afdo.c \
               profiles/profile_llvm.c profiles/align.c
PERFDATA_SRC := $(wildcard perfdata/*.c)
CONVERT_SRC := $(filter-out converter/sfdo_convert_main.c,$(wildcard converter/*.c))
# One archive for every library module: a tool or the plugin pulls in only
# the objects it uses (the plugin never needs libdw or Capstone).
SMOOTH_SRC  := $(wildcard smooth/*.c)
RECORD_SRC  := $(filter-out recorder/sfdo_record_main.c,$(wildcard recorder/*.c))
LIPO_SRC    := $(filter-out lipo/sfdo_link_main.c,$(wildcard lipo/*.c))
LIB_SRC     := $(COMMON_SRC) $(PROFILE_SRC) $(PERFDATA_SRC) $(CONVERT_SRC) \
               $(SMOOTH_SRC) $(RECORD_SRC) $(LIPO_SRC)
LIB_HDR     := $(wildcard common/*.h profiles/*.h perfdata/*.h converter/*.h \
                 smooth/*.h recorder/*.h lipo/*.h) emulator/emu_format.h
# libpfm4 only for sfdo-record (and tests that link recorder/ objects).
LDLIBS      := -ldw -lelf -lcapstone -lzstd -lpfm

TOOLS   := $(B)/sfdo-profile $(B)/sfdo-convert $(B)/sfdo-record $(B)/sfdo-link
PLUGIN  := $(B)/samplefdo.so

UNIT_SRC  := $(wildcard tests/unit/*/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
UNIT_ASAN := $(patsubst tests/unit/%.c,$(B)/asan/%,$(UNIT_SRC))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))

.PHONY: all deps check demo bench install uninstall clean unit fuzz-build

all: $(TOOLS) $(PLUGIN)

deps:
	@scripts/install-deps.sh

# --- the C library: common + profiles ------------------------------------
$(B)/libsfdo.a: $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(B)/asan/libsfdo.a: $(patsubst %.c,$(B)/asan/obj/%.o,$(LIB_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/asan/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

# --- tools ------------------------------------------------------------------
$(B)/sfdo-profile: profiles/sfdo_profile_main.c $(B)/libsfdo.a
	$(CC) $(CFLAGS) $< $(B)/libsfdo.a $(LDLIBS) -o $@

$(B)/sfdo-convert: converter/sfdo_convert_main.c $(B)/libsfdo.a
	$(CC) $(CFLAGS) $< $(B)/libsfdo.a $(LDLIBS) -o $@

$(B)/sfdo-record: recorder/sfdo_record_main.c $(B)/libsfdo.a
	$(CC) $(CFLAGS) $< $(B)/libsfdo.a $(LDLIBS) -o $@

$(B)/sfdo-link: lipo/sfdo_link_main.c $(B)/libsfdo.a
	$(CC) $(CFLAGS) $< $(B)/libsfdo.a $(LDLIBS) -o $@

# --- the GCC plugin (C++, GCC's own style) ---------------------------------
PLUGIN_CXXFLAGS := -std=gnu++17 -O2 -g -fPIC -fno-rtti $(WARN) -DSFDO_VERSION='"$(VERSION)"' \
                   -Wno-unused-parameter -I$(PLUGIN_DIR)/include
$(PLUGIN): $(wildcard plugin/*.cc plugin/*.h) $(B)/libsfdo.a
	@mkdir -p $(@D)
	$(CXX) $(PLUGIN_CXXFLAGS) -shared $(filter %.cc,$^) $(B)/libsfdo.a -o $@

$(PLUGIN): $(wildcard smooth/*.h)

# --- the emulated PMU: a Valgrind tool (emulator/README.md) ------------------
# Built against the installed Valgrind's tool headers and static core
# libraries (Debian: valgrind) when emulator/valgrind-probe.sh finds them,
# all of one version; otherwise left out, saying why (sfdo-record
# --emulate and its tests then say so too).
EMU_PROBE := $(shell emulator/valgrind-probe.sh)
EMU_TOOL  := $(B)/sfdoemu-amd64-linux
EMU_NOTE  := $(B)/sfdoemu.not-built
ifeq ($(firstword $(EMU_PROBE)),ok)
EMU_VG_VERSION := $(word 2,$(EMU_PROBE))
EMU_VG_INC     := $(word 3,$(EMU_PROBE))
EMU_VG_LIBS    := $(addprefix $(word 4,$(EMU_PROBE))/,libcoregrind-amd64-linux.a \
                                                     libvex-amd64-linux.a)
EMU_VG_LOAD    := $(word 5,$(EMU_PROBE))
# Valgrind's own tool flags (Makefile.all.am, Makefile.tool.am): no libc,
# no builtins, a static executable loaded where the launcher expects it.
EMU_CFLAGS := -O2 -g -std=gnu99 -m64 $(WARN) -fno-strict-aliasing -fno-builtin \
              -fno-stack-protector -fomit-frame-pointer -fno-pie \
              -isystem $(EMU_VG_INC) -DVGA_amd64=1 -DVGO_linux=1 \
              -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
              -DSFDO_VERSION='"$(VERSION)"' \
              -DSFDO_EMU_VALGRIND_VERSION='"$(EMU_VG_VERSION)"'
EMU_LDFLAGS := -static -nodefaultlibs -nostartfiles -u _start -no-pie \
               -Wl,--build-id=none -Wl,-Ttext-segment=$(EMU_VG_LOAD)

$(EMU_TOOL): $(wildcard emulator/*.c emulator/*.h) recorder/jitter.h $(EMU_VG_LIBS)
	@mkdir -p $(@D)
	@rm -f $(EMU_NOTE)
	$(CC) $(EMU_CFLAGS) $(filter %.c,$^) -o $@ $(EMU_LDFLAGS) $(EMU_VG_LIBS) -lgcc
else
.PHONY: $(EMU_TOOL)
$(EMU_TOOL):
	@mkdir -p $(@D)
	@echo "$(EMU_PROBE)" > $(EMU_NOTE)
	@echo "note: sfdoemu (sfdo-record --emulate) is not built: $(EMU_PROBE)"
endif

all: $(EMU_TOOL)

# --- tests ----------------------------------------------------------------
UNIT_HDR  := $(wildcard tests/unit/*/*.h)

$(B)/tests/%: tests/unit/%.c $(B)/libsfdo.a $(UNIT_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit $< $(B)/libsfdo.a -lcmocka $(LDLIBS) -o $@

$(B)/asan/%: tests/unit/%.c $(B)/asan/libsfdo.a $(UNIT_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -Itests/unit $< $(B)/asan/libsfdo.a -lcmocka $(LDLIBS) -o $@

$(B)/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(LIB_HDR) $(wildcard tests/fuzz/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all $< $(filter-out $(RECORD_SRC),$(LIB_SRC)) \
	  $(LDLIBS) -o $@

unit: $(UNIT_BIN) $(UNIT_ASAN)
fuzz-build: $(FUZZ_BIN)

check: deps
	@$(MAKE) --no-print-directory all unit fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh

install: all
	@scripts/install-deps.sh libpfm4   # sfdo-record's runtime library
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGIN_DIR) $(DESTDIR)$(SPECDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 755 $(PLUGIN) $(DESTDIR)$(PLUGIN_DIR)/samplefdo.so
	install -m 644 plugin/sfdo.specs $(DESTDIR)$(SPECDIR)/sfdo.specs
	if [ -f $(EMU_TOOL) ]; then \
	  install -m 755 $(EMU_TOOL) $(DESTDIR)$(SPECDIR)/sfdoemu-amd64-linux; fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(DESTDIR)$(PLUGIN_DIR)/samplefdo.so $(DESTDIR)$(SPECDIR)/sfdo.specs
	rm -f $(DESTDIR)$(SPECDIR)/sfdoemu-amd64-linux

clean:
	rm -rf $(B)
