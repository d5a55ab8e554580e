#!/usr/bin/env bash
# run-all.sh - runs colpipe's test suites and sums their TAP.
#
#   MODE=release BUILD=build/release tests/run-all.sh
#   SUITES="unit cli" tests/run-all.sh
#                       (default: layers unit fuzz cli corpus oracle)
#
# Suites:
#   layers  tests/layers.sh: the include rules between the layers
#   unit    every executable $BUILD/tests/test_* (each prints TAP)
#   fuzz    every fuzz target $BUILD/tests/fuzz_* replaying its corpus
#   cli     each tests/cli/*.bats with bats --tap, $BUILD/bin first on PATH
#   corpus  tests/corpus/run.sh: every CSV of the shared corpora
#   oracle  every tests/oracle/*.sh: TPC-H and random data against DuckDB
#
# Counting: an "ok" line passes, an "ok ... # skip" line (and a "1..0 # skip"
# plan) is skipped, a "not ok" line fails.  A suite that times out, exits
# non-zero without a "not ok", or prints fewer results than its plan
# promised counts one more failure under its own name, so a crash can never
# pass for a short success.  The last line of output is always
# "N passed, M failed" (", K skipped" when K > 0); the exit status is 1 when
# anything failed.  Every suite's full output is kept in $BUILD/test-logs/.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in
/*) ;;
*) BUILD=$top/$BUILD ;;
esac
export MODE BUILD
SUITES=${SUITES:-layers unit fuzz cli corpus oracle}

# Per-suite time limits in seconds.  ASan runs everything about three times
# slower, so its limits are wider; the oracle drops its heavy parts there.
if [ "$MODE" = asan ]; then
	t_unit=600 t_cli=900 t_corpus=900 t_oracle=600
else
	t_unit=300 t_cli=600 t_corpus=600 t_oracle=420
fi

logdir=$BUILD/test-logs
mkdir -p "$logdir" || exit 1

total_pass=0 total_fail=0 total_skip=0

# run_suite NAME LIMIT CMD... : runs CMD under a time limit with its output
# in $logdir/NAME.tap, then counts and reports it.
run_suite() {
	local name=$1 limit=$2 log rc start secs counts p f s planned seen
	shift 2
	log=$logdir/$(printf '%s' "$name" | tr '/' '_').tap
	start=$(date +%s)
	# -k: a suite that ignores SIGTERM is killed 10 seconds later.
	timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))

	# p f s planned seen: counts of passed, failed and skipped results,
	# the plan's promise (-1 without a plan) and how many results came.
	counts=$(awk '
		BEGIN { p = 0; f = 0; s = 0; planned = -1; seen = 0 }
		/^not ok/ { f++; seen++; next }
		/^ok/ {
			seen++
			if (tolower($0) ~ /# *skip/) s++; else p++
			next
		}
		/^1\.\.[0-9]+/ {
			n = $0; sub(/^1\.\./, "", n); sub(/[^0-9].*/, "", n)
			planned = n + 0
			if (planned == 0 && tolower($0) ~ /# *skip/) s++
		}
		END { print p, f, s, planned, seen }' "$log")
	read -r p f s planned seen <<EOF
$counts
EOF

	local extra=""
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		extra="timed out after ${limit}s"
	elif [ "$rc" -gt 128 ] && [ "$f" -eq 0 ]; then
		extra="killed by signal $((rc - 128)) without a failing test"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		extra="exited with status $rc without a failing test"
	elif [ "$planned" -ge 0 ] && [ "$seen" -ne "$planned" ]; then
		extra="planned $planned tests, ran $seen"
	elif [ "$planned" -lt 0 ] && [ "$seen" -eq 0 ]; then
		extra="printed no TAP"
	fi
	[ -n "$extra" ] && f=$((f + 1))

	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))

	local summary="$name: $p passed, $f failed"
	[ "$s" -gt 0 ] && summary="$summary, $s skipped"
	summary="$summary (${secs}s)"
	[ -n "$extra" ] && summary="$summary; $extra"
	echo "$summary"

	# Skipped-suite reasons are worth one line.
	grep -i -m1 '^1\.\.0 *# *skip' "$log" | sed 's/^/    /'

	if [ "$f" -gt 0 ]; then
		# Each "not ok" line with the "#" diagnostics around it (unit.h
		# prints them before, bats after), at most 200 lines per suite.
		awk '
			function flush() { for (i = 0; i < nb; i++) out(buf[i]); nb = 0 }
			function out(l) {
				if (++printed <= 200) print "    " l
				else if (printed == 201) print "    ..."
			}
			/^not ok/ { flush(); out($0); after = 1; next }
			/^ok/ || /^1\.\./ { nb = 0; after = 0; next }
			/^#/ { if (after) out($0); else if (nb < 40) buf[nb++] = $0; next }
			{ if (after) out($0) }
		' "$log"
		if [ -n "$extra" ]; then
			echo "    last lines of output:"
			tail -n 15 "$log" | sed 's/^/    | /'
		fi
		echo "    full output: $log"
	fi
}

for suite in $SUITES; do
	case $suite in
	layers)
		run_suite layers "$t_unit" "$top/tests/layers.sh"
		;;
	unit)
		found=0
		for t in "$BUILD"/tests/test_*; do
			[ -f "$t" ] && [ -x "$t" ] || continue
			found=1
			run_suite "unit/${t##*/}" "$t_unit" "$t"
		done
		if [ $found -eq 0 ]; then
			echo "unit: no test programs under $BUILD/tests"
			total_fail=$((total_fail + 1))
		fi
		;;
	cli)
		if ! command -v bats >/dev/null 2>&1; then
			echo "cli: bats not found (make deps)"
			total_fail=$((total_fail + 1))
			continue
		fi
		# Every bats file is a suite of its own, with its own time
		# limit and its own line: a slow file is seen as one.
		for t in "$top"/tests/cli/*.bats; do
			[ -f "$t" ] || continue
			name=${t##*/}
			PATH=$BUILD/bin:$PATH run_suite "cli/${name%.bats}" \
			    "$t_cli" bats --tap "$t"
		done
		;;
	corpus)
		run_suite corpus "$t_corpus" "$top/tests/corpus/run.sh"
		;;
	oracle)
		# Every tests/oracle/*.sh is a suite of its own.
		for t in "$top"/tests/oracle/*.sh; do
			[ -f "$t" ] || continue
			name=${t##*/}
			run_suite "oracle/${name%.sh}" "$t_oracle" "$t"
		done
		;;
	fuzz)
		# Replays each fuzz target's corpus (tests/fuzz/README): a
		# crash or sanitizer report is a failure.
		found=0
		for t in "$BUILD"/tests/fuzz_*; do
			[ -f "$t" ] && [ -x "$t" ] || continue
			found=1
			name=${t##*/}
			run_suite "fuzz/${name#fuzz_}" "$t_unit" \
			    "$top/tests/fuzz/replay.sh" "$t" \
			    "$top/tests/fuzz/corpus/${name#fuzz_}" \
			    "$top/tests/fuzz/regressions/${name#fuzz_}"
		done
		if [ $found -eq 0 ]; then
			echo "fuzz: no fuzz targets under $BUILD/tests"
			total_fail=$((total_fail + 1))
		fi
		;;
	*)
		echo "run-all: unknown suite '$suite' (layers unit cli fuzz corpus oracle)"
		total_fail=$((total_fail + 1))
		;;
	esac
done

line="$total_pass passed, $total_fail failed"
[ "$total_skip" -gt 0 ] && line="$line, $total_skip skipped"
echo "$line"
[ "$total_fail" -eq 0 ]
