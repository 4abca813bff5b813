# sfdo - sample-based feedback-directed optimization for GCC.
#
#   make            build every tool and the plugin into build/
#   make check      install missing Debian packages, build, run every test
#                   (the plugin's with GCC 12 here and GCC 16 in a chroot)
#   make check-all-gcc   the same with GCC 13, 14, 15 and 16 in the chroot
#   make demo       install, build, run the pipeline on examples/demo.c
#   make bench      the benchmarks in bench/ (long; writes bench/RESULTS.md)
#   make plugin GCC=gcc-16   the plugin for another installed GCC (12 to 16)
#   make install    PREFIX=/usr/local DESTDIR= : tools, the plugin (for every
#                   GCC built), sfdo.specs under PREFIX; no root needed
#   make install-gcc-plugin GCC=gcc-16   also into that GCC's own plugin
#                   directory, for -fplugin=samplefdo by name

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
SPECDIR  ?= $(PREFIX)/lib/sfdo
CC       ?= gcc
# The GCC the plugin is built for, and its C++ driver (g++-16 for gcc-16).
GCC      ?= gcc
GXX      ?= $(subst gcc,g++,$(GCC))
FUZZ_CC  ?= clang
FUZZ_SECONDS ?= 30
VERSION  := 0.1.0

B        := build
WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE $(WARN) -DSFDO_VERSION='"$(VERSION)"'
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer -O1 -g

PLUGIN_DIR := $(shell $(GCC) -print-file-name=plugin)
GCC_MAJOR  := $(shell $(GCC) -dumpversion 2>/dev/null | cut -d. -f1)

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
# The plugin GCC loads (-fplugin=.../samplefdo.so) is a loader that picks
# the build for the running GCC, samplefdo-gccN.so beside it
# (plugin/loader.c says why).
PLUGIN_LOADER := $(B)/samplefdo.so
PLUGIN_IMPL   := $(B)/samplefdo-gcc$(GCC_MAJOR).so
PLUGIN        := $(PLUGIN_LOADER) $(PLUGIN_IMPL)

UNIT_SRC  := $(wildcard tests/unit/*/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
UNIT_ASAN := $(patsubst tests/unit/%.c,$(B)/asan/%,$(UNIT_SRC))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))

.PHONY: all deps check check-all-gcc demo bench install uninstall install-gcc-plugin \
        uninstall-gcc-plugin clean unit fuzz-build

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
.PHONY: plugin plugin-headers
plugin: $(PLUGIN)

PLUGIN_CXXFLAGS := -std=gnu++17 -O2 -g -fPIC -fno-rtti $(WARN) -DSFDO_VERSION='"$(VERSION)"' \
                   -Wno-unused-parameter -I$(PLUGIN_DIR)/include
$(PLUGIN_IMPL): $(wildcard plugin/*.cc plugin/*.h smooth/*.h) $(B)/libsfdo.a | plugin-headers
	@mkdir -p $(@D)
	$(GXX) $(PLUGIN_CXXFLAGS) -shared $(filter %.cc,$^) $(B)/libsfdo.a -o $@

$(PLUGIN_LOADER): plugin/loader.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared $< -ldl -o $@

# A missing header package is named before the compiler fails on it.
plugin-headers:
	@if [ -z "$(GCC_MAJOR)" ]; then \
	  echo "error: GCC=$(GCC): no such compiler (make plugin GCC=gcc-16 names one)" >&2; \
	  exit 1; fi
	@if [ ! -f "$(PLUGIN_DIR)/include/gcc-plugin.h" ]; then \
	  echo "error: $(GCC) $(GCC_MAJOR) has no plugin headers in $(PLUGIN_DIR)/include;" \
	       "install gcc-$(GCC_MAJOR)-plugin-dev" >&2; exit 1; fi

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

# make check also runs the plugin's tests with GCC 16, and check-all-gcc
# with GCC 13 to 16, in a Debian sid chroot (scripts/gcc-chroot.sh; made
# once, cached; a visible skip where it cannot be made).
CHECK_GCC ?= 16
check: deps
	@$(MAKE) --no-print-directory all unit fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) SFDO_CHECK_GCC="$(CHECK_GCC)" tests/run.sh

check-all-gcc:
	@$(MAKE) --no-print-directory check CHECK_GCC="13 14 15 16"

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh

# Everything goes under PREFIX: the tools, the plugin's loader and every
# build of it made here (one per GCC), and sfdo.specs naming the loader by
# its installed path (cc1 resolves a plugin by name only when the driver
# passed -iplugindir, which a spec cannot make it do).
install: all
	@scripts/install-deps.sh libpfm4   # sfdo-record's runtime library
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SPECDIR)
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	install -m 755 $(PLUGIN_LOADER) $(DESTDIR)$(SPECDIR)/samplefdo.so
	install -m 755 $(B)/samplefdo-gcc*.so $(DESTDIR)$(SPECDIR)/
	sed 's|@PLUGIN@|$(SPECDIR)/samplefdo.so|g' plugin/sfdo.specs.in \
	  > $(DESTDIR)$(SPECDIR)/sfdo.specs
	if [ -f $(EMU_TOOL) ]; then \
	  install -m 755 $(EMU_TOOL) $(DESTDIR)$(SPECDIR)/sfdoemu-amd64-linux; fi

# Into GCC's own plugin directory (root, usually), so that
# -fplugin=samplefdo finds it by name.
install-gcc-plugin: $(PLUGIN)
	install -d $(DESTDIR)$(PLUGIN_DIR)
	install -m 755 $(PLUGIN_LOADER) $(DESTDIR)$(PLUGIN_DIR)/samplefdo.so
	install -m 755 $(PLUGIN_IMPL) $(DESTDIR)$(PLUGIN_DIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(DESTDIR)$(SPECDIR)/samplefdo.so $(DESTDIR)$(SPECDIR)/samplefdo-gcc*.so
	rm -f $(DESTDIR)$(SPECDIR)/sfdo.specs $(DESTDIR)$(SPECDIR)/sfdoemu-amd64-linux

uninstall-gcc-plugin:
	rm -f $(DESTDIR)$(PLUGIN_DIR)/samplefdo.so $(DESTDIR)$(PLUGIN_DIR)/$(notdir $(PLUGIN_IMPL))

clean:
	rm -rf $(B)
