# The two commands a user needs: `make run` (the demo on the default partitioned board) and
# `make test` (every test: unit, integration, Robot). Both set up what they need idempotently.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT      := $(abspath .)
BUILD     := $(ROOT)/build
VENV      := $(BUILD)/venv
PY        := $(VENV)/bin/python
JAVA_HOME := /usr/lib/jvm/temurin-25-jdk-amd64
export JAVA_HOME
export PATH := $(JAVA_HOME)/bin:$(VENV)/bin:$(PATH)
export RTDROID_HOME := $(ROOT)
MVN       := mvn -B -q -Dstyle.color=never
# Maven's own JVM: no colour reset codes at exit (jansi) and no sun.misc.Unsafe warnings of Maven's
# libraries (guava) in a newcomer's terminal; JAVA_HOME above is a JDK that knows the option. C1
# only: Maven and the javac it runs in-process do half the CPU work of a clean build without C2
# (its compilations do not pay back in a build); the tests' forked JVMs keep the default JIT.
export MAVEN_OPTS := $(MAVEN_OPTS) -Djansi.noreset=true --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1
# The default board (board-configs/default-board, which the rtdroid CLI reads too).
BOARD     ?= $(shell cat board-configs/default-board)
BENCH     ?=
# make figures: quick (short runs, the seeds' shapes; what make test runs) or full (the seeds' sample counts).
FIGURES   ?= quick
# The boards whose Robot suites `make test` runs: those whose board file says `tests: make_test: true`
# (each board file lists its suites and budgets). Read once the venv exists.
TEST_BOARDS ?= $(shell $(PY) -m rtdroid.boardtests boards)

.PHONY: help setup build java contracts-doc android-aot c apk apk-test test test-clock unit-test java-test python-test c-test integration-test robot \
        fuzz-short run bench bench-cell characterise characterise-sustained fuzz soak loop clean figures figures-test lab lab-test lab-down test-lab

help:
	@echo "make run   [BOARD=$(BOARD)|...]      boot the board (see board-configs/), deploy the demo, measure, report"
	@echo "make test                            every test: unit, integration, Robot on each board with tests.make_test"
	@echo "make bench [BENCH=looper|periodic|channels|alarm|sensor|reflection|broadcast|bridge]   benchmarks -> build/bench/*.json"
	@echo "make bench-cell [BOARD=...]          the reflection benchmark in BOARD's RT cell, in its time base -> build/bench/reflection-<board>.json"
	@echo "make figures [FIGURES=quick|full]    the seeds' figures and tables reproduced -> build/report/figures/index.html"
	@echo "make characterise [BOARD=...] [CHARACTERISE=--quick]   both cells' datasheet (seeds 002, 003) -> build/report/characterise-<board>.html"
	@echo "make characterise-sustained [BOARD=...] [SUSTAINED=N] [PERIODS_US=P,...]   the seed's 10,000,000-interrupt run (hours)"
	@echo "make apk                             signed APKs -> build/apk/"
	@echo "make soak  [SOAK_MINUTES=60]         cochlear implant under Android stress, restarts, floods: per-minute figures"
	@echo "make loop  [BOARD=...] [RUNS=100]    make run again and again, stops at the first deadline miss: build/loop/"
	@echo "make fuzz  [FUZZ_SECONDS=60]         fuzz every decoder of the other cell's bytes (C, Java, Python)"
	@echo "make lab | lab-test | lab-down       a local LAVA lab: start it, run the emulated boards' jobs, stop it"

# --- set-up -----------------------------------------------------------------------------------
# tools/setup.sh keeps its own stamp: when nothing changed it returns at once.
setup:
	@bash tools/setup.sh

# --- build ------------------------------------------------------------------------------------
build: setup java android-aot c apk

java: setup
	@echo "== building the JVM modules (Maven)"
	$(MVN) -DskipTests install

# The payload tables of bridge/docs/protocols.md, regenerated from the app contracts (bridge/contracts).
contracts-doc: setup
	$(MVN) -DskipTests -Dcontracts.doc.skip=true -pl bridge/contracts -am install
	java -cp 'bridge/codegen/target/classes:bridge/codegen/target/lib/*:bridge/contracts/target/classes' \
	    org.rtdroid.codegen.ContractCheck --doc bridge/docs/protocols.md --write

c: setup
	@echo "== building libxcc (C)"
	$(MAKE) -s -C bridge/c
	@echo "== building the native probes (C; x86_64 and the arm64 cell's)"
	$(MAKE) -s -C rt-cell/probes
	$(MAKE) -s -C rt-cell/probes ARCH=aarch64

# The Android cell's JDK 25 AOT cache (tools/rtdroid/rtdroid/aotcache.py): a training run when
# the cell's jars changed, so that its JVM starts from already loaded and linked classes.
android-aot: setup
	$(PY) -m rtdroid.aotcache

apk: java
	@echo "== building signed APKs"
	bash android-cell/apk/build-apk.sh

apk-test: setup
	@echo "== building and verifying signed APKs (apksigner, aapt, dexdump)"
	bash android-cell/apk/build-apk.sh --verify

# --- tests ------------------------------------------------------------------------------------
# Order matters: Maven builds and tests the JVM modules (android-cell's ApkTest builds and verifies
# the signed APKs: what apk-test runs, so make test does not run it twice), the C peer is built
# and tested, then the Python tests (some run against the built Java and C peers), the
# integration tests and the Robot suites on real boards.
TEST_PHASES := setup java-test android-aot c-test python-test fuzz-short integration-test robot figures-test
test: test-clock $(foreach p,$(TEST_PHASES),$(p) test-clock-$(p))
	@printf '%-18s %5s s\n' "make test" $(call seconds-between,$$(cat $(BUILD)/.test-start),$$(date +%s.%N)) \
	  >> $(TEST_TIMES); echo "== make test: wall time per phase"; cat $(TEST_TIMES)
	@echo "make test: all suites passed"

# make test's clock, so that a CI log shows where the time goes: a line as each phase ends, and
# every phase's wall time in build/test-times.txt (serial make runs the prerequisites in order).
TEST_TIMES := $(BUILD)/test-times.txt
.PHONY: $(addprefix test-clock-,$(TEST_PHASES))
test-clock:
	@mkdir -p $(BUILD); date +%s.%N | tee $(BUILD)/.test-start > $(BUILD)/.test-clock; : > $(TEST_TIMES)
$(foreach p,$(TEST_PHASES),$(eval test-clock-$(p): ; @$$(call phase-ended,$(p))))
seconds-between = $$(awk -v a=$(1) -v b=$(2) 'BEGIN { printf "%.0f", b - a }')
phase-ended = t0=$$(cat $(BUILD)/.test-clock); t1=$$(date +%s.%N); echo $$t1 > $(BUILD)/.test-clock; \
  s=$(call seconds-between,$$t0,$$t1); \
  printf '%-18s %5s s\n' $(1) $$s >> $(TEST_TIMES); echo "== make test: $(1) took $$s s"

unit-test: java-test c-test python-test

java-test: setup
	@echo "== JVM unit tests"
	$(MVN) install

python-test: setup
	@echo "== Python unit tests"
	$(PY) -m pytest -q -m "not integration" bridge/python/tests bridge/vectors tools/rtdroid/tests \
	  tests/robot/unit

c-test: setup
	@echo "== C unit tests"
	$(MAKE) -s -C bridge/c test
	$(MAKE) -s -C rt-cell/probes test

# Every fuzz target for a few seconds from its kept corpus (Maven's tests already replayed the
# Java corpora): a finding fails the suite. In make test, java-test has just built and installed
# the Java modules: the Java targets run on them (--java-built) instead of building them again.
fuzz-short: setup
	@echo "== fuzz targets, 5 s each (make fuzz for longer runs)"
	$(PY) fuzz/run.py --seconds 5 --json $(BUILD)/fuzz/short.json $(if $(filter test,$(MAKECMDGOALS)),--java-built)

integration-test: setup
	@echo "== integration tests (real processes, real regions, QEMU under TCG)"
	$(PY) -m pytest -q -m integration tools/rtdroid/tests

# Each board runs the suites its board file lists (tests.suites), with its budgets as variables;
# SUITES="03_latency 08_spark" runs only those (each suite brings its own board up).
robot: setup
	@test -n "$(TEST_BOARDS)" || { echo "make robot: no board to test (TEST_BOARDS is empty)"; exit 1; }
	@for b in $(TEST_BOARDS); do \
	  echo "== Robot suites on board $$b"; \
	  suites=$$($(PY) -m rtdroid.boardtests suites $$b) || exit 1; \
	  if [ -n "$(SUITES)" ]; then suites=$$(for s in $(SUITES); do printf -- '--suite %s ' $$s; done); fi; \
	  $(PY) -m robot --outputdir $(BUILD)/robot/$$b --variablefile tests/robot/variables/board.py:$$b \
	    $$suites --listener tests/robot/libraries/LatencyListener.py \
	    tests/robot/suites || { $(PY) tests/robot/failed.py $(BUILD)/robot/$$b/output.xml; exit 1; }; \
	done

# --- the main job -----------------------------------------------------------------------------
run: build
	$(PY) tools/demo/run_demo.py --board $(BOARD)

# --- benchmarks, fuzzing and the soak (not part of make test) -------------------------------------------
bench: build
	$(PY) tools/bench.py $(if $(BENCH),--only $(BENCH),)

# The reflection benchmark in BOARD's RT cell (the cell's JVM probe), in the cell's time base:
# virtual time on the QEMU boards. Boots BOARD and brings it down.
bench-cell: build
	$(PY) tools/bench.py --only reflection --board $(BOARD)

# The seeds' evaluations (bench/figures): every reproduction's benchmark, then one page.
figures: build
	$(PY) bench/figures/figures.py --form $(FIGURES)

# make test's share: the quick form once, then the shape of every figure's output.
figures-test: setup
	$(PY) bench/figures/figures.py --form quick --test --out $(BUILD)/report/figures-test || true
	FIGURES_OUT=$(BUILD)/report/figures-test $(PY) -m pytest -q -p no:cacheprovider bench/figures/tests

# The board's datasheet (seeds 002, 003): boots BOARD, characterises both cells (the full series;
# CHARACTERISE=--quick for the short one), writes build/characterise/$(BOARD).json and
# build/report/characterise-$(BOARD).html, and brings the board down whatever happened.
characterise: build
	$(VENV)/bin/rtdroid board up --board $(BOARD)
	rc=0; $(VENV)/bin/rtdroid characterise --board $(BOARD) $(CHARACTERISE) || rc=$$?; \
	  $(VENV)/bin/rtdroid board down --board $(BOARD); exit $$rc

# The seed's long sustained interrupt frequency run (not in make test): SUSTAINED timer interrupts
# (default the seed's 10,000,000) at each of PERIODS_US (default the seed's 310-410 us: ~6 h) in
# both cells at once -> build/characterise/$(BOARD)-sustained.json.
characterise-sustained: build
	$(VENV)/bin/rtdroid board up --board $(BOARD)
	rc=0; $(VENV)/bin/rtdroid characterise --board $(BOARD) --sustained $(or $(SUSTAINED),10000000) \
	  $(if $(PERIODS_US),--periods-us $(PERIODS_US)) || rc=$$?; \
	  $(VENV)/bin/rtdroid board down --board $(BOARD); exit $$rc

fuzz: build
	$(PY) fuzz/run.py --seconds $${FUZZ_SECONDS:-60} --java-built

soak: build
	$(PY) tools/soak.py --minutes $${SOAK_MINUTES:-60}

# LOOP_LOCK=FILE: flock around each run only (a machine shared with others' boards).
loop: build
	$(PY) tools/loop.py --board $(BOARD) --runs $${RUNS:-100} $(if $(LOOP_LOCK),--lock $(LOOP_LOCK),)

# --- a local LAVA lab (tools/lab/README.md): not part of make test ------------------------------
# LAB_BOARD_LOCK: the lock every job that boots a board takes (a machine where others boot boards
# passes theirs); LAB_BOARDS: the boards whose jobs lab-test submits.
LAB_BOARDS ?= qemu-x86_64 qemu-arm64-xen
lab: build
	bash tools/lab/lab.sh up

lab-test: lab
	$(VENV)/bin/rtdroid lava submit $(foreach b,$(LAB_BOARDS),--board $(b))

lab-down:
	bash tools/lab/lab.sh down

# The lab's integration test: a board's deploy and latency suites as a LAVA job, and jobs that fail.
test-lab: lab
	$(PY) -m pytest -q tools/lab/tests

clean:
	-$(VENV)/bin/rtdroid board down 2>/dev/null || true
	$(MVN) clean || true
	rm -rf $(BUILD)
