# Entry points for people and CI. `make demo` and `make test` work on a fresh
# Debian 12 as root: they install what is missing first (scripts/setup-deps.sh).
BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
TSAN_DIR   ?= build-tsan
FUZZ_DIR   ?= build-fuzz
JOBS       ?= $(shell nproc)
TEST_JOBS  ?= 2
CMAKE_ARGS ?=
PREFIX     ?= /usr/local

.PHONY: all deps configure build install uninstall deb test test-pg test-asan test-tsan fuzz fuzz-build fuzz-ownership demo bench bench-actors bench-http bench-middleware bench-middleware-cpu bench-pg bench-soak bench-compare soak-web-app clean

all: build

deps:
	bash scripts/setup-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# The installed layout (docs/decisions/0093): PREFIX/bin/woc,
# PREFIX/lib/woc/libwo_runtime.a, PREFIX/share/woc/{stdlib,editors}; woc finds
# them relative to its own executable, so any PREFIX works. DESTDIR stages it.
# `make uninstall` removes the files the last install wrote
# ($(BUILD_DIR)/install_manifest.txt) and the directories left empty.
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD_DIR) --prefix $(PREFIX) --strip

uninstall:
	@test -f $(BUILD_DIR)/install_manifest.txt || { echo "make uninstall: no $(BUILD_DIR)/install_manifest.txt (nothing installed from $(BUILD_DIR))"; exit 1; }
	xargs -d '\n' rm -f < $(BUILD_DIR)/install_manifest.txt
	for d in "$(DESTDIR)$(PREFIX)/share/woc" "$(DESTDIR)$(PREFIX)/lib/woc"; do \
	  [ ! -d "$$d" ] || find "$$d" -depth -type d -empty -delete; done

# A Debian package of the same layout under /usr: $(BUILD_DIR)/woc_<version>_<arch>.deb.
deb: build
	cd $(BUILD_DIR) && cpack -G DEB

test: build
	@ls /usr/lib/postgresql/*/bin/initdb "$$(pg_config --bindir 2>/dev/null)/initdb" 2>/dev/null | grep -q . || \
	  echo "make test: no PostgreSQL server binaries (Debian's postgresql-15): the PostgreSQL suite (ctest -L pg) is SKIPPED"
	@command -v haproxy >/dev/null || echo "make test: no haproxy: the two-process legs (ctest pg.two-process) are SKIPPED"
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(TEST_JOBS)

# The PostgreSQL suite alone (issue 13; tests/pg/README.md): every table and
# transaction fixture in both modes against a private server it starts, the
# SIGKILL crash test, porch across two processes behind haproxy.
test-pg: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(TEST_JOBS) -L pg

# AddressSanitizer + UndefinedBehaviorSanitizer over woc, the runtime, the unit
# tests and every corpus fixture (native programs are linked with the same flags).
test-asan: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWO_SANITIZE=address,undefined $(CMAKE_ARGS)
	cmake --build $(ASAN_DIR) -j$(JOBS)
	ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(TEST_JOBS)

# ThreadSanitizer over woc, the runtime, the code woc generates (woc
# instruments it when built with WO_SANITIZE=thread) and the tests labelled
# `tsan`: actor and multi-shard fixtures in both modes, the actor stress and
# signal tests, the store's concurrent tests (docs/decisions/0021), and the
# PostgreSQL store's pg.store and pg.two-process when its server is installed. The first
# report stops the program with status 66, which fails its test.
test-tsan: deps
	cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWO_SANITIZE=thread $(CMAKE_ARGS)
	cmake --build $(TSAN_DIR) -j$(JOBS)
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 $(TSAN_OPTIONS)" \
	  ctest --test-dir $(TSAN_DIR) --output-on-failure -j$(TEST_JOBS) -L tsan

# libFuzzer targets (fuzz/README.md), built with clang-19 in their own build
# directory; `make fuzz` runs each for FUZZ_TIME seconds (default 600), one
# after the other. FUZZ_JOBS=N runs N workers per target.
fuzz-build: deps
	bash scripts/setup-fuzz-deps.sh
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-19 \
	  -DCMAKE_CXX_COMPILER=clang++-19 -DWO_FUZZ=ON $(CMAKE_ARGS)
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_frontend fuzz_pipeline fuzz_http fuzz_http_response

fuzz: fuzz-build
	FUZZ_DIR=$(FUZZ_DIR) bash fuzz/run.sh

# The ownership fuzzer (fuzz/ownership/README.md, issue 24): small programs that
# borrow a part of a value and then destroy or change its owner, each refused
# with WO-E30x or run JIT and native against the output its model predicts; for
# FUZZ_TIME seconds (default 600) of random seeds. Every failure is written as a
# ready-to-add corpus fixture under $(BUILD_DIR)/fuzz-ownership/failures/.
# `make test` runs its fixed set (ctest fuzz.ownership). FUZZ_WOC=build-asan/bin/woc
# fuzzes with the AddressSanitizer woc (after `make test-asan` has built it).
FUZZ_WOC ?= $(BUILD_DIR)/bin/woc
fuzz-ownership: build
	nice -n 10 python3 fuzz/ownership/run.py --woc $(FUZZ_WOC) --time $${FUZZ_TIME:-600} \
	  --out $(BUILD_DIR)/fuzz-ownership

demo: build
	$(BUILD_DIR)/bin/woc run examples/demo

bench: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/run.sh
	BUILD_DIR=$(BUILD_DIR) bash bench/db/run.sh
	BUILD_DIR=$(BUILD_DIR) bash bench/db-restart/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/store-lang/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/actors/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/http/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/middleware/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/soak/run.sh
	BUILD_DIR=$(BUILD_DIR) bash bench/libs/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/pg/run.sh || [ $$? -eq 77 ]

# The current build against an older one on the same workloads, in one run
# (bench/compare.sh): OLD=DIR names the older build directory.
bench-compare: build
	@test -n "$(OLD)" || { echo "make bench-compare OLD=DIR: DIR is an older build (bin/woc, bin/libwo_runtime.a)"; exit 2; }
	bash bench/compare.sh $(OLD) $(BUILD_DIR)

# Connection churn, the long version: 200,000 short connections against a
# framework server per shape (one actor per connection, a worker pool,
# App.serve), each checked for a flat VmRSS and its fds back (bench/soak).
bench-soak: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/soak/run.sh

# The web-app soak, on demand: examples/web-app for SOAK_SECS (600) seconds
# under a mix of keep-alive load, churn, slow and half-sent requests, flag
# flips and orders, its VmRSS and fds sampled (bench/soak/web-app-soak.sh).
soak-web-app: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/soak/web-app-soak.sh

# The actor workloads alone, beside Go, Erlang and Crystal (BENCH_QUICK=1: ~1 min).
bench-actors: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/actors/run.sh

# HTTP: wrk against the same two routes in woc (the framework), Go net/http and
# Crystal HTTP::Server, plus RSS with 1,000 idle connections (BENCH_QUICK=1: ~1 min);
# then HTTPS (keep-alive and a handshake per request) and the HTTP client against
# Go's (bench/http/tls.sh).
bench-http: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/http/run.sh
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/http/tls.sh

# The web-app's product list bare, behind porch's Limiter and behind
# Idempotent, against the disk's raw fdatasync rate (bench/middleware).
bench-middleware: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/middleware/run.sh

# The same routes' server CPU per request, split into the Limiter's parts
# (a `call`, a volatile count, a durable one, one in a transaction); the
# figure to compare on a loaded machine (bench/middleware/cpu.sh).
bench-middleware-cpu: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/middleware/cpu.sh

# PostgreSQL as the store (issue 13 item 7): store.wo's inserts and lookups
# beside the embedded store, the web-app through haproxy with 1, 2 and 4
# processes on one database (bench/pg). Without the server binaries, haproxy
# or wrk it prints a SKIPPED line and succeeds.
bench-pg: build
	WOC=$(abspath $(BUILD_DIR))/bin/woc bash bench/pg/run.sh || [ $$? -eq 77 ]

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
