#!/bin/sh
# agg.sh - colagg's benchmark: group-by aggregation of TPC-H lineitem from
# an MLSPILL3 file and end to end from CSV (through csv2col), in memory
# and under a budget that spills, beside DuckDB's GROUP BY over the same
# rows as CSV and as Parquet, in the same run.
#
#	BUILD=build/release harness/agg.sh
#	SCALE=10 RUNS=3 BUILD=build/release harness/agg.sh    (about SF1)
#
# Environment: BUILD (whose bin/ is measured), SCALE (1 = TPC-H SF0.1
# lineitem, 600572 rows; N > 1 = N copies of its rows), RUNS (timed runs
# per case after one warm-up, default 3), MEM (the in-memory budget,
# default 1G), SMALL (the spilling budget, default 16M), COLPIPE_SHARED,
# TMPDIR (data, outputs and spill files; about four times the CSV).
#
# Data: li.csv; li.col (csv2col); dd.parquet (DuckDB's COPY TO parquet of
# read_csv, for DuckDB's best case: colpipe's .col has no counterpart in
# DuckDB).
#
# Cases, each timed by harness/timer (wall, CPU, peak RSS of the largest
# process); every DuckDB case is a whole node process (start-up
# included) with 2 threads, see harness/agg_duckdb.mjs:
#   q1   TPC-H Q1: colscan -w | colagg (four money sums, three averages,
#        a count, 4 groups) from li.col and from csv2col's pipe.
#   hc   lineitem by l_orderkey (150000 groups whatever SCALE): count,
#        two decimal sums and a max, from li.col at MEM and at SMALL
#        (which must spill) and from csv2col's pipe.
#   cd   count(DISTINCT l_partkey) by l_suppkey (Q16's shape: two
#        passes, the first by (l_suppkey, l_partkey)), at MEM and SMALL.
#   floors  colagg --version, csv2col li.csv alone, DuckDB's start-up.
#
# Answers before times: Q1's rows (colagg | colsort | col2csv) must be
# DuckDB's, and for hc and cd the number of groups and the sums of their
# columns, at both budgets; numbers compared with 4 decimals.  A wrong
# answer stops the run.
#
# Last, the ratios the targets are stated in: DuckDB on Parquet over
# colagg from li.col in memory (target >= 2), DuckDB on the CSV over the
# pipeline from CSV (target > 1), colagg spilling over in memory (target
# <= 2) with its peak RSS beside the budget.
#
# Exit status: 0 done (or skipped: no data), 1 a wrong answer or a failed
# run, 2 a missing binary or tool.
set -eu

. "$(dirname "$0")/lib.sh"
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
MEM=${MEM:-1G}
SMALL=${SMALL:-16M}
bench_init agg
need_tools csv2col col2csv colscan colsort colagg
need_duckdb

# The aggregations, spelt once for colagg; exported for the pipelines
# the timer runs under sh -c.
AGG_Q1W="l_shipdate <= DATE '1998-09-02'"
AGG_Q1K="l_returnflag, l_linestatus"
AGG_Q1="sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
    sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
    avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price,
    avg(l_discount) AS avg_disc, count(*) AS count_order"
AGG_HC="count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p,
    max(l_shipdate) AS last"
AGG_CD="count(DISTINCT l_partkey) AS parts, count(*) AS n"
export AGG_Q1W AGG_Q1K AGG_Q1 AGG_HC AGG_CD MEM SMALL

# ---- data ----
bench_lineitem
csv="$tmp/li.csv" col="$tmp/li.col" dpq="$tmp/dd.parquet"
"$bin/csv2col" "$csv" >"$col" || die 1 "csv2col failed"
dd="node harness/agg_duckdb.mjs"
$dd copy "$csv" "$dpq" || die 1 "DuckDB cannot write Parquet"
rows=$(($(wc -l <"$csv") - 1))
say "agg bench: lineitem x $SCALE, $rows rows, $(($(wc -c <"$csv") /
    1000000)) MB of CSV, $(($(wc -c <"$col") / 1000000)) MB of MLSPILL3," \
    "$(($(wc -c <"$dpq") / 1000000)) MB of Parquet (DuckDB)"

# ---- answers first ----
# Numbers with 4 decimals, as agg_duckdb.mjs prints them.
fix4() {
	awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++)
	    if ($i ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) $i = sprintf("%.4f", $i)
	    print }'
}
# sums COLS: the number of groups and the sums of columns COLS of the
# MLSPILL3 on stdin, through colagg itself (exact, checked above it by
# DuckDB's).
sums() {
	"$bin/colagg" "count(*), $1" | "$bin/col2csv" --no-header | fix4
}
q1_want=$($dd check q1 "$csv") || die 1 "DuckDB cannot run Q1"
got=$($dd check q1 "$dpq") || die 1 "DuckDB cannot run Q1 on Parquet"
[ "$got" = "$q1_want" ] || die 1 "DuckDB's Q1 differs on Parquet"
got=$("$bin/colscan" -w "$AGG_Q1W" "$col" |
    "$bin/colagg" -m "$MEM" --by "$AGG_Q1K" "$AGG_Q1" |
    "$bin/colsort" -k l_returnflag -k l_linestatus |
    "$bin/col2csv" --no-header | fix4)
[ "$got" = "$q1_want" ] || die 1 "Q1: colagg gives
$got
DuckDB
$q1_want"
for c in hc cd; do
	want=$($dd check $c "$csv") || die 1 "DuckDB cannot run $c"
	if [ $c = hc ]; then
		k=l_orderkey a=$AGG_HC s="sum(n), sum(q), sum(p)"
	else
		k=l_suppkey a=$AGG_CD s="sum(parts), sum(n)"
	fi
	for m in "$MEM" "$SMALL"; do
		got=$("$bin/colagg" -m "$m" --by $k "$a" "$col" | sums "$s")
		[ "$got" = "$want" ] ||
		    die 1 "$c at -m $m: colagg $got, DuckDB $want"
	done
	# The small budget must spill.
	st=$("$bin/colagg" --stats -m "$SMALL" --by $k "$a" "$col" 2>&1 \
	    >/dev/null) || die 1 "$c --stats failed"
	printf '%s\n' "$st" | grep -q ' [1-9][0-9]* partitions' ||
	    die 1 "$c at -m $SMALL did not spill: $st"
	say "agg bench: $c: $want (groups, sums), -m $SMALL:" \
	    "$(printf '%s\n' "$st" | sed -n 's/^colagg: \(.*spilled\)$/\1/p')"
done
say "agg bench: answers right"

# ---- times ----
row() {
	printf '%-36s %9s %9s %9s %8s\n' "$1" "$(jget "$2" best_wall_ms)" \
	    "$(jget "$2" median_wall_ms)" "$(jget "$2" best_cpu_ms)" \
	    "$(jget "$2" peak_rss_mb)"
}
# run VAR NAME CMD...: times CMD and prints its row; its best wall, CPU
# and peak RSS are left in $VAR, ${VAR}_cpu and ${VAR}_rss.
run() {
	var=$1 name=$2
	shift 2
	res=$("$timer" -n "$RUNS" -w 1 -o "$tmp/out" -- "$@") ||
	    die 1 "$name: failed"
	rm -f "$tmp/out"
	row "$name" "$res"
	[ "$var" = - ] && return
	eval "$var=\$(jget \"\$res\" best_wall_ms)"
	eval "${var}_cpu=\$(jget \"\$res\" best_cpu_ms)"
	eval "${var}_rss=\$(jget \"\$res\" peak_rss_mb)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
vs() {
	eval "a=\$$1 b=\$$2 ac=\$${1}_cpu bc=\$${2}_cpu"
	printf '%sx (cpu %sx)' "$(ratio "$a" "$b")" "$(ratio "$ac" "$bc")"
}
export bin csv col tmp

printf '%-36s %9s %9s %9s %8s\n' case best_ms median_ms cpu_ms rss_MiB
run - "floor colagg --version" "$bin/colagg" --version
run - "floor csv2col li.csv" "$bin/csv2col" "$csv"
run - "DuckDB startup" $dd startup

run q1_col "q1 colscan li.col|colagg" sh -c \
    '"$bin/colscan" -w "$AGG_Q1W" "$col" |
    "$bin/colagg" -m "$MEM" --by "$AGG_Q1K" "$AGG_Q1"'
run q1_pipe "q1 csv2col|colscan|colagg" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/colscan" -w "$AGG_Q1W" |
    "$bin/colagg" -m "$MEM" --by "$AGG_Q1K" "$AGG_Q1"'
run q1_dcsv "q1 DuckDB li.csv" $dd run q1 "$csv"
run q1_dpq "q1 DuckDB dd.parquet" $dd run q1 "$dpq"

run hc_col "hc colagg li.col -m MEM" "$bin/colagg" -m "$MEM" \
    --by l_orderkey "$AGG_HC" "$col"
run hc_small "hc colagg li.col -m SMALL" "$bin/colagg" -m "$SMALL" \
    --by l_orderkey "$AGG_HC" "$col"
run hc_pipe "hc csv2col|colagg -m MEM" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/colagg" -m "$MEM" --by l_orderkey "$AGG_HC"'
run hc_dcsv "hc DuckDB li.csv" $dd run hc "$csv"
run hc_dpq "hc DuckDB dd.parquet" $dd run hc "$dpq"

run cd_col "cd colagg li.col -m MEM" "$bin/colagg" -m "$MEM" \
    --by l_suppkey "$AGG_CD" "$col"
run cd_small "cd colagg li.col -m SMALL" "$bin/colagg" -m "$SMALL" \
    --by l_suppkey "$AGG_CD" "$col"
run cd_pipe "cd csv2col|colagg -m MEM" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/colagg" -m "$MEM" --by l_suppkey "$AGG_CD"'
run cd_dcsv "cd DuckDB li.csv" $dd run cd "$csv"
run cd_dpq "cd DuckDB dd.parquet" $dd run cd "$dpq"

# ---- the targets ----
for c in q1 hc cd; do
	echo "$c DuckDB dd.parquet over colagg from li.col: $(vs ${c}_dpq \
	    ${c}_col) (target >= 2)"
	echo "$c DuckDB li.csv over the pipeline from CSV: $(vs ${c}_dcsv \
	    ${c}_pipe) (target > 1)"
done
for c in hc cd; do
	eval "r=\$${c}_small_rss"
	echo "$c colagg -m $SMALL over -m $MEM: $(vs ${c}_small ${c}_col)" \
	    "(target <= 2), peak RSS $r MiB at -m $SMALL"
done
