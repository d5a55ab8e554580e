#!/bin/sh
# join.sh - coljoin's benchmark: lineitem joined with orders on the
# order key, coljoin side by side with DuckDB in the same run, at a
# budget that holds the build side (orders) and at one that forces
# partitioning to spill files.
#
#	BUILD=build/release harness/join.sh
#	SCALE=10 RUNS=3 BUILD=build/release harness/join.sh
#
# Environment: BUILD (whose bin/ is measured), MEM (the budget that
# holds orders, default 1G), SMALL (the spilling one, default 8M), SCALE
# (1 = TPC-H SF0.1, 600572 line items and 150000 orders; N > 1 = N
# copies of both with the order keys of copy i shifted by i * 6000000,
# about N x 90 MB of CSV), RUNS (default 3), COLPIPE_SHARED, TMPDIR
# (data, outputs and every tool's spill files; it needs room for about
# five times the CSV).
#
# Cases, at each budget, each timed by harness/timer (wall, CPU, peak
# RSS of the largest process):
#   coljoin col>null  coljoin -m M --on l_orderkey=o_orderkey li.col o.col
#                     > /dev/null  (every output frame made, then dropped)
#   coljoin col>col   the same with -o out.col (fully written)
#   coljoin csv>csv   coljoin <(csv2col li.csv) <(csv2col o.csv) | col2csv
#                     > out.csv  (end to end)
#   DuckDB count      SELECT count(*) of the join, from tables loaded
#                     beforehand (the query alone is timed, in-process)
#   DuckDB write      CREATE TEMP TABLE r AS SELECT * of the join, the
#                     same way
#   DuckDB csv>csv    COPY (SELECT * FROM read_csv(li) JOIN read_csv(o)
#                     ...) TO out.csv, the whole process timed
#   DuckDB pq count   the whole process over Parquet files of the same
#                     rows (written by DuckDB beforehand): count(*)
#   DuckDB pq>pq      the same, the join written out: COPY (SELECT * ...)
#                     TO out.parquet
# DuckDB runs with 2 threads (as coljoin), each case at the smallest
# memory_limit among the budget, 64, 128, 256, 512 MiB and 1 GiB that
# completes (it is shown).  Before timing, coljoin's row count at each
# budget and DuckDB's must be the line items' count (every line item has its
# order); a wrong count stops the run.  Row-for-row agreement with
# DuckDB is tests/oracle/join.sh's job.  Last, the ratios the targets are
# stated in: DuckDB's in-memory join over coljoin's from .col files
# (DuckDB's query alone on loaded tables, and DuckDB's whole process
# from Parquet against coljoin's from .col, both whole processes),
# coljoin spilling over coljoin in memory, DuckDB's CSV pipeline over
# coljoin's.
#
# Exit status: 0 done (or skipped: no data), 1 a wrong answer or a failed
# run, 2 a missing binary or tool.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build/release}
case $BUILD in /*) ;; *) BUILD="$top/$BUILD" ;; esac
MEM=${MEM:-1G}
SMALL=${SMALL:-8M}
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
shared=${COLPIPE_SHARED:-../shared}
case $shared in /*) ;; *) shared="$top/$shared" ;; esac
tpch="$shared/data/tpch/sf0.1"
bin=$BUILD/bin
export LC_ALL=C

say() { printf '%s\n' "$*" >&2; }
die() { st=$1; shift; say "join bench: $*"; exit "$st"; }
jget() { printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"; }

for t in lineitem orders; do
	[ -r "$tpch/$t.csv.zst" ] ||
	    { say "join bench: skipped: $tpch/$t.csv.zst not found"; exit 0; }
done
for t in csv2col col2csv coljoin; do
	[ -x "$bin/$t" ] || die 2 "$bin/$t: not built"
done
command -v zstd >/dev/null || die 2 "zstd: not found (make deps)"
command -v bash >/dev/null || die 2 "bash: not found"
duckdb=1
if ! command -v node >/dev/null ||
    [ ! -d tests/oracle/node_modules/@duckdb/node-api ]; then
	say "join bench: node or DuckDB missing (make deps); DuckDB skipped"
	duckdb=0
fi
timer="$BUILD/harness/timer"
mkdir -p "$BUILD/harness"
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -o "$timer" harness/timer.c ||
    die 2 "cannot build harness/timer.c"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-joinbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$tmp/spill"

# ---- data: CSV and MLSPILL3 ----
# scaled NAME: NAME.csv in $tmp, SCALE copies, order keys shifted (the
# first field of both tables, a plain integer).
scaled() {
	zstd -dc "$tpch/$1.csv.zst" >"$tmp/one.csv"
	if [ "$SCALE" -le 1 ]; then
		mv "$tmp/one.csv" "$tmp/$1.csv"
		return
	fi
	{
		head -n 1 "$tmp/one.csv"
		i=0
		while [ $i -lt "$SCALE" ]; do
			tail -n +2 "$tmp/one.csv" | awk -F, -v OFS=, \
			    -v off=$((i * 6000000)) '{ $1 += off; print }'
			i=$((i + 1))
		done
	} >"$tmp/$1.csv"
	rm "$tmp/one.csv"
}
scaled lineitem
scaled orders
"$bin/csv2col" "$tmp/lineitem.csv" >"$tmp/li.col"
"$bin/csv2col" "$tmp/orders.csv" >"$tmp/o.col"
want=$(($(wc -l <"$tmp/lineitem.csv") - 1))
csv_mb=$((($(wc -c <"$tmp/lineitem.csv") + $(wc -c <"$tmp/orders.csv")) / 1000000))
say "join bench: $want line items, $(($(wc -l <"$tmp/orders.csv") - 1))" \
    "orders, $csv_mb MB of CSV, budgets $MEM and $SMALL"

on="--on l_orderkey=o_orderkey"
cj="$bin/coljoin -T $tmp/spill $on"

# ---- answers first ----
for m in $MEM $SMALL; do
	got=$($cj -m "$m" --stats "$tmp/li.col" "$tmp/o.col" 2>&1 >/dev/null |
	    sed -n 's/.* right rows, \([0-9]*\) rows out.*/\1/p')
	[ "$got" = "$want" ] ||
	    die 1 "coljoin -m $m: $got rows, want $want"
	got=$(bash -c "$cj -m $m <('$bin/csv2col' '$tmp/lineitem.csv') \
	    <('$bin/csv2col' '$tmp/orders.csv') | '$bin/col2csv' --no-header |
	    wc -l")
	[ "$got" = "$want" ] ||
	    die 1 "coljoin -m $m from CSV: $got rows, want $want"
done
# limits M: the DuckDB memory limits to try for budget M, smallest first.
limits() {
	mb=$(echo "$1" | sed -n 's/^\([0-9]*\)[Mm].*/\1/p')
	gb=$(echo "$1" | sed -n 's/^\([0-9]*\)[Gg].*/\1/p')
	echo ${mb:+${mb}MB} ${gb:+${gb}GB} 64MB 128MB 256MB 512MB 1GB
}

# ---- times ----
# run NAME CMD...: times CMD and prints its row; its best and median wall
# times are left in $best and $median.
row() {
	printf '%-30s %9s %9s %9s %8s\n' "$1" "$(jget "$2" best_wall_ms)" \
	    "$(jget "$2" median_wall_ms)" "$(jget "$2" best_cpu_ms)" \
	    "$(jget "$2" peak_rss_mb)"
	best=$(jget "$2" best_wall_ms)
}
run() {
	name=$1
	shift
	res=$("$timer" -n "$RUNS" -w 1 -o "$tmp/out" -- "$@") ||
	    die 1 "$name: failed"
	rm -f "$tmp/out"
	row "$name" "$res"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '%-30s %9s %9s %9s %8s\n' case best_ms median_ms cpu_ms rss_MiB
for m in $MEM $SMALL; do
	run "coljoin -m $m col>null" $cj -m "$m" "$tmp/li.col" "$tmp/o.col"
	eval "null_$(echo "$m" | tr -cd 'A-Za-z0-9')=\$best"
	run "coljoin -m $m col>col" $cj -m "$m" -o "$tmp/j.col" \
	    "$tmp/li.col" "$tmp/o.col"
	eval "col_$(echo "$m" | tr -cd 'A-Za-z0-9')=\$best"
	run "coljoin -m $m csv>csv" bash -c "$cj -m $m \
	    <('$bin/csv2col' '$tmp/lineitem.csv') \
	    <('$bin/csv2col' '$tmp/orders.csv') | '$bin/col2csv'"
	eval "csv_$(echo "$m" | tr -cd 'A-Za-z0-9')=\$best"
	rm -f "$tmp/j.col"
	[ $duckdb -eq 1 ] || continue
	key=$(echo "$m" | tr -cd 'A-Za-z0-9')
	# The in-memory joins, from tables: the smallest limit that
	# completes, timed inside DuckDB.
	for what in count write; do
		res=
		for lim in $(limits "$m"); do
			if out=$(node harness/join_duckdb.mjs tables \
			    "$tmp/lineitem.csv" "$tmp/orders.csv" $what \
			    "$lim" "$RUNS" 2>"$tmp/duck.err"); then
				res=$(printf '%s\n' "$out" | tail -n 1)
				break
			fi
			say "join bench: DuckDB $what at $lim:" \
			    "$(cat "$tmp/duck.err")"
		done
		[ -n "$res" ] || { say "join bench: DuckDB $what never" \
		    "completed"; continue; }
		rows=$(printf '%s\n' "$out" | sed -n 's/^rows=//p')
		[ "$rows" = "$want" ] ||
		    die 1 "DuckDB at $lim: $rows rows, want $want"
		row "DuckDB $lim $what (query)" "$res"
		eval "d${what}_$key=\$best"
	done
	# End to end: find the limit with one run (checking the rows),
	# then time it.
	lim=none
	for l in $(limits "$m"); do
		if node harness/join_duckdb.mjs csv "$tmp/lineitem.csv" \
		    "$tmp/orders.csv" "$tmp/duck.csv" "$l" 2>"$tmp/duck.err"
		then
			lim=$l
			break
		fi
		say "join bench: DuckDB csv at $l: $(cat "$tmp/duck.err")"
	done
	# Whole processes from Parquet: count, then the join written.
	if [ ! -r "$tmp/li.parquet" ]; then
		node harness/join_duckdb.mjs parquet "$tmp/lineitem.csv" \
		    "$tmp/orders.csv" "$tmp/li.parquet" "$tmp/o.parquet" ||
		    die 1 "DuckDB could not write the Parquet files"
	fi
	for what in count write; do
		plim=none
		for l in $(limits "$m"); do
			out=$tmp/duck.parquet
			[ $what = count ] && out=count
			if got=$(node harness/join_duckdb.mjs pq \
			    "$tmp/li.parquet" "$tmp/o.parquet" "$out" "$l" \
			    2>"$tmp/duck.err"); then
				plim=$l
				break
			fi
			say "join bench: DuckDB pq $what at $l:" \
			    "$(cat "$tmp/duck.err")"
		done
		[ "$plim" != none ] || continue
		[ $what = write ] || [ "$got" = "$want" ] ||
		    die 1 "DuckDB pq count at $plim: $got rows, want $want"
		run "DuckDB $plim pq $what" node harness/join_duckdb.mjs pq \
		    "$tmp/li.parquet" "$tmp/o.parquet" "$out" "$plim"
		eval "dpq${what}_$key=\$best"
		rm -f "$tmp/duck.parquet"
	done
	[ "$lim" != none ] || continue
	[ "$(wc -l <"$tmp/duck.csv")" = "$want" ] ||
	    die 1 "DuckDB csv at $lim: wrong row count"
	rm -f "$tmp/duck.csv"
	run "DuckDB $lim csv>csv" node harness/join_duckdb.mjs csv \
	    "$tmp/lineitem.csv" "$tmp/orders.csv" "$tmp/duck.csv" "$lim"
	eval "dcsv_$key=\$best"
	rm -f "$tmp/duck.csv"
done
big=$(echo "$MEM" | tr -cd 'A-Za-z0-9')
small=$(echo "$SMALL" | tr -cd 'A-Za-z0-9')
eval "nb=\$null_$big cb=\$col_$big ns=\$null_$small cs=\$col_$small"
printf 'coljoin -m %s over -m %s: col>null %sx, col>col %sx (target <= 1.5)\n' \
    "$SMALL" "$MEM" "$(ratio "$ns" "$nb")" "$(ratio "$cs" "$cb")"
if [ $duckdb -eq 1 ] && eval "[ -n \"\${dwrite_$big:-}\" ]" &&
    eval "[ -n \"\${dcsv_$big:-}\" ]"; then
	eval "dc=\${dcount_$big:-0} dw=\$dwrite_$big dv=\$dcsv_$big vb=\$csv_$big"
	printf 'DuckDB in memory over coljoin -m %s: count/col>null %sx, ' \
	    "$MEM" "$(ratio "$dc" "$nb")"
	printf 'write/col>col %sx (target >= 2); csv>csv %sx (target > 1)\n' \
	    "$(ratio "$dw" "$cb")" "$(ratio "$dv" "$vb")"
fi
if [ $duckdb -eq 1 ] && eval "[ -n \"\${dpqcount_$big:-}\" ]" &&
    eval "[ -n \"\${dpqwrite_$big:-}\" ]"; then
	eval "pc=\$dpqcount_$big pw=\$dpqwrite_$big"
	printf 'DuckDB from Parquet over coljoin -m %s from .col, whole ' "$MEM"
	printf 'processes: count/col>null %sx, pq>pq/col>col %sx (target >= 2)\n' \
	    "$(ratio "$pc" "$nb")" "$(ratio "$pw" "$cb")"
fi
