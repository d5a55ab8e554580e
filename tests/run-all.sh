#!/usr/bin/env bash
# run-all.sh - runs colpipe's test suites and sums their TAP.
#
#   MODE=release BUILD=build/release tests/run-all.sh
#   SUITES="unit cli" tests/run-all.sh
#                       (default: layers unit fuzz cli corpus oracle)
#   JOBS=1 tests/run-all.sh
#                       suites at once (default: the number of cores, at
#                       most 4); each suite's line is printed when it ends
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
#
# Suites run JOBS at a time, the slowest of the last run first (its times
# are kept in $BUILD/test-logs/times), so two cores finish together.  The
# suites share nothing but the build: each makes its own temporary files.
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
if [ -z "${JOBS:-}" ]; then
	JOBS=$(nproc 2>/dev/null || echo 1)
	[ "$JOBS" -gt 4 ] && JOBS=4
fi
case $JOBS in
'' | *[!0-9]* | 0) echo "run-all: JOBS must be a positive number, not '$JOBS'"; exit 2 ;;
esac

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
# in $logdir/NAME.tap, then counts it: the report goes to NAME.report and
# the counts ("passed failed skipped seconds") to NAME.counts, written last
# so that its presence means the suite has ended.
run_suite() {
	local name=$1 limit=$2 base log rc start secs counts p f s planned seen
	shift 2
	base=$logdir/$(printf '%s' "$name" | tr '/' '_')
	log=$base.tap
	rm -f "$base.counts"
	{
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
	} >"$base.report"
	echo "$p $f $s $secs" >"$base.counts.tmp" &&
	    mv "$base.counts.tmp" "$base.counts"
}

# The queue: one "NAME LIMIT KIND ARG" line a suite, run by start_job.
queue=()
enqueue() { queue+=("$1 $2 $3 ${4:-}"); }

# start_job NAME LIMIT KIND ARG: runs one queued suite in the background.
start_job() {
	local name=$1 limit=$2 kind=$3 arg=$4
	case $kind in
	layers) run_suite "$name" "$limit" "$top/tests/layers.sh" ;;
	unit) run_suite "$name" "$limit" "$arg" ;;
	cli) PATH=$BUILD/bin:$PATH run_suite "$name" "$limit" bats --tap "$arg" ;;
	corpus) run_suite "$name" "$limit" "$top/tests/corpus/run.sh" ;;
	oracle) run_suite "$name" "$limit" "$arg" ;;
	fuzz)
		local t=${arg##*/}
		run_suite "$name" "$limit" "$top/tests/fuzz/replay.sh" "$arg" \
		    "$top/tests/fuzz/corpus/${t#fuzz_}" \
		    "$top/tests/fuzz/regressions/${t#fuzz_}"
		;;
	esac
}

# collect NAME: adds an ended suite's counts to the totals and prints its
# report.
collect() {
	local base p f s secs
	base=$logdir/$(printf '%s' "$1" | tr '/' '_')
	read -r p f s secs <"$base.counts"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	cat "$base.report"
	echo "$1 $secs" >>"$logdir/times.new"
}

for suite in $SUITES; do
	case $suite in
	layers)
		enqueue layers "$t_unit" layers
		;;
	unit)
		found=0
		for t in "$BUILD"/tests/test_*; do
			[ -f "$t" ] && [ -x "$t" ] || continue
			found=1
			enqueue "unit/${t##*/}" "$t_unit" unit "$t"
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
			enqueue "cli/${name%.bats}" "$t_cli" cli "$t"
		done
		;;
	corpus)
		enqueue corpus "$t_corpus" corpus
		;;
	oracle)
		# Every tests/oracle/*.sh is a suite of its own.
		for t in "$top"/tests/oracle/*.sh; do
			[ -f "$t" ] || continue
			name=${t##*/}
			enqueue "oracle/${name%.sh}" "$t_oracle" oracle "$t"
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
			enqueue "fuzz/${name#fuzz_}" "$t_unit" fuzz "$t"
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

# The slowest suites of the last run first; new ones keep their place.
if [ -f "$logdir/times" ] && [ "$JOBS" -gt 1 ]; then
	mapfile -t queue < <(
		for i in "${!queue[@]}"; do
			set -- ${queue[$i]}
			secs=$(awk -v n="$1" '$1 == n { s = $2 } END { print s + 0 }' \
			    "$logdir/times")
			printf '%s\t%s\t%s\n' "$secs" "$i" "${queue[$i]}"
		done | sort -t "$(printf '\t')" -k1,1nr -k2,2n | cut -f3)
fi
rm -f "$logdir/times.new"

# running: the names of the suites started and not yet collected.
running=()
reap() {
	local keep=() n base
	for n in "${running[@]}"; do
		base=$logdir/$(printf '%s' "$n" | tr '/' '_')
		if [ -f "$base.counts" ]; then
			collect "$n"
		else
			keep+=("$n")
		fi
	done
	running=("${keep[@]}")
}
for job in "${queue[@]}"; do
	set -- $job
	while [ "${#running[@]}" -ge "$JOBS" ]; do
		wait -n 2>/dev/null || true
		reap
		# A suite whose shell died before writing its counts.
		if [ "${#running[@]}" -ge "$JOBS" ] && [ -z "$(jobs -rp)" ]; then
			break
		fi
	done
	rm -f "$logdir/$(printf '%s' "$1" | tr '/' '_').counts"
	start_job "$1" "$2" "$3" "${4:-}" &
	running+=("$1")
done
wait
reap
for n in "${running[@]}"; do
	echo "$n: ended without a report"
	total_fail=$((total_fail + 1))
done
# This run's times replace the last run's; suites not run keep theirs.
if [ -f "$logdir/times.new" ]; then
	touch "$logdir/times"
	awk 'NR == FNR { t[$1] = $2; next } !($1 in t) { print }
	    END { for (n in t) print n, t[n] }' \
	    "$logdir/times.new" "$logdir/times" >"$logdir/times.tmp" &&
	    mv "$logdir/times.tmp" "$logdir/times"
	rm -f "$logdir/times.new"
fi

line="$total_pass passed, $total_fail failed"
[ "$total_skip" -gt 0 ] && line="$line, $total_skip skipped"
echo "$line"
[ "$total_fail" -eq 0 ]
