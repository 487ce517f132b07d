# rigdeck - the only build entry point.  `make help` lists the targets.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build

CC      ?= cc
CORE_PKGS := libcurl jansson yaml-0.1 sqlite3 openssl libmicrohttpd libarchive
TUI_PKGS  := ncursesw
PKGS      := $(TUI_PKGS) $(CORE_PKGS)
TESTPKG := cmocka
DEBS    := build-essential pkg-config libncurses-dev libcurl4-openssl-dev \
           libjansson-dev libyaml-dev libsqlite3-dev libssl-dev libcmocka-dev \
           libmicrohttpd-dev libarchive-dev libarchive-tools rclone git sqlite3 tmux valgrind python3 \
           etcd-server etcd-client openssl podman runc busybox-static uidmap slirp4netns fuse-overlayfs \
           faketime prometheus samba fuse3 python3-fastapi python3-uvicorn curl python3-pyftpdlib avahi-daemon avahi-utils dbus iproute2

OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Werror
# core/ builds without the console's include path or curses flags: the
# library must never reach up into tui/.
#
# The layers of core/, bottom to top (docs/architecture.md, "Layers").  A
# folder calls only the folders before it in this list, so each one is
# compiled with only itself and those on its include path: a call up (or a
# new two-way pair of folders) does not compile.  The executor reaches the
# top (core/app: the command registry, the store bootstrap) only through
# the hooks core/app registers (cmd_hooks, cmd.h).  The one source of the
# order: scripts/callgraph.py --folders reads this variable too, and a
# folder missing from it stops the build.  tui/ and the tests see all.
CORE_LAYERS := base model store cmd access ledger fleet data jobs sched \
               metrics alerts cloud report serve agent app
CORE_DIRS   := $(sort $(patsubst %/,%,$(dir $(wildcard core/*/*.c))))
$(foreach d,$(CORE_DIRS:core/%=%),$(if $(filter $d,$(CORE_LAYERS)),,$(error core/$d is not in CORE_LAYERS)))
# $(call layers_upto,F,LIST): the words of LIST up to and including F
layers_upto = $(if $2,$(firstword $2) $(if $(filter $1,$(firstword $2)),,$(call layers_upto,$1,$(wordlist 2,$(words $2),$2))))
# $(call core_inc,F): the include path of core/F's files
core_inc = $(addprefix -iquote ,$(filter $(CORE_DIRS),$(addprefix core/,$(call layers_upto,$1,$(CORE_LAYERS)))))
CFLAGS_LIB  = -std=c17 -D_GNU_SOURCE $(WARN) $(OPT) $(SANITIZE) \
              $(shell pkg-config --cflags $(CORE_PKGS) 2>/dev/null)
CFLAGS_CORE = $(CFLAGS_LIB) $(call core_inc,app)
CFLAGS_ALL  = $(CFLAGS_CORE) $(shell pkg-config --cflags $(TUI_PKGS) 2>/dev/null)
# Every program linked with the library gets core/app/app.c, whose
# app_init runs before main and installs the executor's hooks (the command
# registry, the store bootstrap, the guard): no front end or test can
# forget it, and one without it would run no command (the hooks fail closed).
LDLIBS_APP  = -Wl,--require-defined=app_init
LDLIBS_CORE = $(LDLIBS_APP) $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null) -lm -lpthread
LDLIBS_ALL  = $(LDLIBS_APP) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread
TEST_CFLAGS = $(shell pkg-config --cflags $(TESTPKG) 2>/dev/null)
TEST_LIBS   = $(shell pkg-config --libs $(TESTPKG) 2>/dev/null)

CORE_SRC := $(wildcard core/*/*.c)
TUI_SRC  := $(wildcard tui/*/*.c)
# tui/ by front end (app, console, widgets, panes): each on the include path.
TUI_INC  := $(addprefix -iquote ,$(sort $(patsubst %/,%,$(dir $(TUI_SRC)))))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/librigdeck.a
BIN      := $(BUILD)/rigdeck
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CONF_BIN := $(BUILD)/tests/store_conformance
TUI_UNIT_BIN := $(patsubst tests/tui_unit/%.c,$(BUILD)/tests/%,$(wildcard tests/tui_unit/test_*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# Fuzz targets run as tests: tests/fuzz/fuzz_X.c + the driver -> test_fuzz_X.
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(BUILD)/tests/test_fuzz_%)
FUZZ_TUI_BIN := $(BUILD)/tests/test_fuzz_theme

.PHONY: all test run asan valgrind bench install clean deps check-deps help demo

all: $(BIN) $(UNIT_BIN) $(CONF_BIN) $(TUI_UNIT_BIN) $(FUZZ_BIN) $(BUILD)/bench/bigfleet_gen

help:
	@echo "make            build build/rigdeck and the tests"
	@echo "make test       install packages if needed, build, run every test"
	@echo "make run        install packages if needed, open the console on a demo fleet"
	@echo "make asan       the same tests under AddressSanitizer + UBSan"
	@echo "make valgrind   the same tests under valgrind (zero leaks, zero errors)"
	@echo "make bench      optimised build, print benchmark figures"
	@echo "make install    PREFIX=$(PREFIX) DESTDIR=: binary, man page, themes, bash completion, route server"
	@echo "make deps       install the Debian packages (as root) or print the command"

$(BUILD)/obj/core/%.o: core/%.c $(wildcard core/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) $(call core_inc,$(firstword $(subst /, ,$*))) -c $< -o $@

$(BUILD)/obj/tui/%.o: tui/%.c $(wildcard core/*/*.h tui/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TUI_INC) -c $< -o $@

$(LIB): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(TUI_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) -o $@ $(TUI_OBJ) $(LIB) $(LDLIBS_ALL)

# Two unit tests link with wrapped symbols: test_alloc_fail fails the Nth
# allocation (a malloc shim), test_tui_table_oom fails a table's strdup.
$(BUILD)/tests/test_alloc_fail: TEST_LIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
$(BUILD)/tests/test_tui_table_oom: TEST_LIBS += -Wl,--wrap=strdup

$(BUILD)/tests/%: tests/unit/%.c tests/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(TEST_CFLAGS) -iquote tests -o $@ $< $(LIB) $(LDLIBS_CORE) $(TEST_LIBS)

# Unit tests of pure console code: linked with the tui objects but main.o.
$(TUI_UNIT_BIN): $(BUILD)/tests/%: tests/tui_unit/%.c tests/testutil.h $(filter-out %/main.o,$(TUI_OBJ)) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) -iquote tests $(TUI_INC) -o $@ $< $(filter-out %/main.o,$(TUI_OBJ)) $(LIB) $(LDLIBS_ALL) $(TEST_LIBS)

# Fuzz targets (tests/fuzz/fuzz.h): each with the driver that runs its seed
# corpus and a bounded number of mutations; the theme's with the console's
# objects, like its unit tests.
$(filter-out $(FUZZ_TUI_BIN),$(FUZZ_BIN)): $(BUILD)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(wildcard tests/fuzz/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -iquote tests/fuzz -DFUZZ_NAME='"$*"' -o $@ $< tests/fuzz/driver.c $(LIB) $(LDLIBS_CORE)

$(FUZZ_TUI_BIN): $(BUILD)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(wildcard tests/fuzz/*.h) $(filter-out %/main.o,$(TUI_OBJ)) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -iquote tests/fuzz $(TUI_INC) -DFUZZ_NAME='"$*"' -o $@ $< tests/fuzz/driver.c $(filter-out %/main.o,$(TUI_OBJ)) $(LIB) $(LDLIBS_ALL)

$(CONF_BIN): tests/conformance/store_conformance.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) $(TEST_CFLAGS) -iquote tests -o $@ $< $(LIB) $(LDLIBS_CORE) $(TEST_LIBS)

# The Dashboard's benchmark measures console code: linked like the
# console's unit tests.
$(BUILD)/bench/bench_dash: tests/bench/bench_dash.c $(filter-out %/main.o,$(TUI_OBJ)) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -iquote tests $(TUI_INC) -o $@ $< $(filter-out %/main.o,$(TUI_OBJ)) $(LIB) $(LDLIBS_ALL)

$(BUILD)/bench/%: tests/bench/%.c $(wildcard tests/bench/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -iquote tests -o $@ $< $(LIB) $(LDLIBS_CORE)

# ---- packages ---------------------------------------------------------------
check-deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "missing packages:$$missing"; exit 1; fi

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing:$$missing"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "rigdeck needs these Debian packages; run:"; \
	  echo "  sudo apt-get install -y$$missing"; exit 1; \
	fi

# ---- running ----------------------------------------------------------------
test: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/run.sh

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	@scripts/demo.sh $(BIN)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all" all
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  BUILD=build-asan tests/run.sh

valgrind: deps
	@$(MAKE) --no-print-directory BUILD=build-vg OPT="-O0 -g" all
	@BUILD=build-vg RIGDECK_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible" \
	  tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory BUILD=build-bench OPT="-O2 -DNDEBUG" build-bench/rigdeck \
	  $(BENCH_SRC:tests/bench/%.c=build-bench/bench/%) build-bench/bench/bigfleet_gen
	@BUILD=build-bench tests/bench/run.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/rigdeck/themes $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rigdeck
	install -m 0644 docs/rigdeck.1 $(DESTDIR)$(PREFIX)/share/man/man1/rigdeck.1
	install -m 0644 scripts/rigdeck.bash-completion \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rigdeck
	for t in themes/*.yaml; do [ -e "$$t" ] && install -m 0644 $$t $(DESTDIR)$(PREFIX)/share/rigdeck/themes/ || true; done
	install -m 0755 scripts/route_server.py $(DESTDIR)$(PREFIX)/share/rigdeck/route_server.py

clean:
	rm -rf build build-asan build-vg build-bench
