#!/bin/sh
# sort.sh - colsort's benchmark: lineitem sorted by (l_shipdate,
# l_orderkey) under one memory budget, colsort side by side with GNU sort
# and DuckDB in the same run.
#
#	BUILD=build/release harness/sort.sh
#	SCALE=10 MEM=64M RUNS=3 BUILD=build/release harness/sort.sh
#
# Environment: BUILD (whose bin/ is measured), MEM (the budget, default
# 64M), SCALE (1 = TPC-H SF0.1 lineitem, 600572 rows; N > 1 = N copies
# with shifted order keys, about N x 74 MB of CSV), RUNS (default 3),
# COLPIPE_SHARED, TMPDIR (data, outputs and every tool's spill files; it
# needs room for about six times the CSV).
#
# Cases, each timed by harness/timer (wall, CPU, peak RSS of the largest
# process):
#   colsort csv   csv2col FILE | colsort -m MEM -k l_shipdate -k l_orderkey
#                 | col2csv          (CSV in, CSV out: the whole pipeline)
#   colsort col   colsort -m MEM ... FILE.col > OUT.col  (MLSPILL3 to MLSPILL3)
#   GNU sort      LC_ALL=C sort -t'|' -k11,11 -k1,1n -S MEM  on the same
#                 rows as '|'-separated text
#   DuckDB        COPY (SELECT * FROM read_csv(FILE, buffer_size=262144)
#                 ORDER BY l_shipdate, l_orderkey) TO OUT, at the smallest
#                 memory_limit among MEM, 80, 96, 128, 192, 256 MiB that
#                 completes (it is recorded)
# A last line gives GNU sort's best and median times over colsort's, file
# to file and for the whole pipeline.  Before timing, each output's
# (l_shipdate, l_orderkey) sequence must be GNU sort's; a wrong answer
# stops the run.
#
# Exit status: 0 done (or skipped: no data), 1 a wrong answer or a failed
# run, 2 a missing binary or tool.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build/release}
case $BUILD in /*) ;; *) BUILD="$top/$BUILD" ;; esac
MEM=${MEM:-64M}
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
shared=${COLPIPE_SHARED:-../shared}
case $shared in /*) ;; *) shared="$top/$shared" ;; esac
zst="$shared/data/tpch/sf0.1/lineitem.csv.zst"
bin=$BUILD/bin
export LC_ALL=C

say() { printf '%s\n' "$*" >&2; }
die() { st=$1; shift; say "sort bench: $*"; exit "$st"; }
jget() { printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"; }

[ -r "$zst" ] || { say "sort bench: skipped: $zst not found"; exit 0; }
for t in csv2col col2csv colsort; do
	[ -x "$bin/$t" ] || die 2 "$bin/$t: not built"
done
command -v zstd >/dev/null || die 2 "zstd: not found (make deps)"
duckdb=1
if ! command -v node >/dev/null ||
    [ ! -d tests/oracle/node_modules/@duckdb/node-api ]; then
	say "sort bench: node or DuckDB missing (make deps); DuckDB skipped"
	duckdb=0
fi
timer="$BUILD/harness/timer"
mkdir -p "$BUILD/harness"
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$timer" harness/timer.c ||
    die 2 "cannot build harness/timer.c"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-sortbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$tmp/spill"

# ---- data: CSV, the same rows as '|' text, and MLSPILL3 ----
zstd -dc "$zst" >"$tmp/one.csv"
if [ "$SCALE" -le 1 ]; then
	mv "$tmp/one.csv" "$tmp/li.csv"
else
	# N copies; copy i adds i * 6000000 to l_orderkey so keys stay
	# distinct per line number.
	{
		head -n 1 "$tmp/one.csv"
		i=0
		while [ $i -lt "$SCALE" ]; do
			tail -n +2 "$tmp/one.csv" | awk -F, -v OFS=, \
			    -v off=$((i * 6000000)) '{ $1 += off; print }'
			i=$((i + 1))
		done
	} >"$tmp/li.csv"
	rm "$tmp/one.csv"
fi
"$bin/csv2col" "$tmp/li.csv" >"$tmp/li.col"
"$bin/col2csv" -f tsv --no-header "$tmp/li.col" | tr '\t' '|' >"$tmp/li.tbl"
rows=$(wc -l <"$tmp/li.tbl")
csv_mb=$(($(wc -c <"$tmp/li.csv") / 1000000))
say "sort bench: $rows rows, $csv_mb MB of CSV, budget $MEM"

# ---- answers first ----
keys="-k l_shipdate -k l_orderkey"
sort -t'|' -k11,11 -k1,1n -S "$MEM" -T "$tmp/spill" "$tmp/li.tbl" |
    cut -d'|' -f1,11 >"$tmp/want"
"$bin/csv2col" "$tmp/li.csv" | "$bin/colsort" -m "$MEM" -T "$tmp/spill" \
    $keys | "$bin/col2csv" -f tsv --no-header | cut -f1,11 | tr '\t' '|' |
    cmp -s - "$tmp/want" || die 1 "colsort's order is not GNU sort's"
duck_limit=none
if [ $duckdb -eq 1 ]; then
	mb=$(echo "$MEM" | sed -n 's/^\([0-9]*\)[Mm].*/\1/p')
	for lim in ${mb:+${mb}MB} 80MB 96MB 128MB 192MB 256MB; do
		if node harness/sort_duckdb.mjs "$tmp/li.csv" "$tmp/duck.csv" \
		    "$lim" 2>"$tmp/duck.err"; then
			duck_limit=$lim
			break
		fi
		say "sort bench: DuckDB at $lim: $(cat "$tmp/duck.err")"
	done
	if [ "$duck_limit" != none ]; then
		tr -d '"' <"$tmp/duck.csv" | awk -F, '{ print $1 "|" $11 }' |
		    cmp -s - "$tmp/want" || die 1 "DuckDB's order differs"
	fi
fi
rm -f "$tmp/want" "$tmp/duck.csv"

# ---- times ----
# run NAME CMD...: times CMD and prints its row; its best and median wall
# times are left in $best and $median.
run() {
	name=$1
	shift
	res=$("$timer" -n "$RUNS" -w 1 -o "$tmp/out" -- "$@") ||
	    die 1 "$name: failed"
	rm -f "$tmp/out"
	best=$(jget "$res" best_wall_ms)
	median=$(jget "$res" median_wall_ms)
	printf '%-26s %9s %9s %9s %8s\n' "$name" "$best" "$median" \
	    "$(jget "$res" best_cpu_ms)" "$(jget "$res" peak_rss_mb)"
}
# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '%-26s %9s %9s %9s %8s\n' case best_ms median_ms cpu_ms rss_MiB
run "colsort csv|sort|csv" sh -c "'$bin/csv2col' '$tmp/li.csv' |
    '$bin/colsort' -m $MEM -T '$tmp/spill' $keys | '$bin/col2csv'"
pipe_best=$best pipe_median=$median
run "colsort col->col" "$bin/colsort" -m "$MEM" -T "$tmp/spill" $keys \
    "$tmp/li.col"
col_best=$best col_median=$median
run "colsort col->col zstd" "$bin/colsort" -m "$MEM" -T "$tmp/spill" \
    --compress-spill $keys "$tmp/li.col"
run "GNU sort -S $MEM" sort -t'|' -k11,11 -k1,1n -S "$MEM" \
    -T "$tmp/spill" "$tmp/li.tbl"
gnu_best=$best gnu_median=$median
if [ "$duck_limit" != none ]; then
	run "DuckDB $duck_limit" node harness/sort_duckdb.mjs "$tmp/li.csv" \
	    "$tmp/duck.csv" "$duck_limit"
else
	say "sort bench: DuckDB did not complete at any limit tried"
fi
# GNU sort's time over colsort's, from the runs above (above 1: colsort
# is faster).
printf 'GNU sort / colsort, best (median): col->col %sx (%sx), ' \
    "$(ratio "$gnu_best" "$col_best")" "$(ratio "$gnu_median" "$col_median")"
printf 'csv|sort|csv %sx (%sx)\n' "$(ratio "$gnu_best" "$pipe_best")" \
    "$(ratio "$gnu_median" "$pipe_median")"
