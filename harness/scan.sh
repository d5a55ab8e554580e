#!/bin/sh
# scan.sh - colscan's benchmark: filters and projections over TPC-H
# lineitem as CSV (through csv2col), as an MLSPILL3 file and as two
# Parquet files, colscan side by side with DuckDB in the same run.
#
#	BUILD=build/release harness/scan.sh
#	SCALE=10 RUNS=3 BUILD=build/release harness/scan.sh    (about SF1)
#
# Environment: BUILD (whose bin/ is measured), SCALE (1 = TPC-H SF0.1
# lineitem, 600572 rows; N > 1 = N copies of its rows, about N x 74 MB of
# CSV), RUNS (timed runs per case after one warm-up, default 3),
# COLPIPE_SHARED, TMPDIR (data and outputs; about five times the CSV).
#
# Data, the same rows four ways: li.csv; li.col (csv2col); li.parquet
# (csv2col | col2parquet, snappy); dd.parquet (DuckDB's COPY ... TO
# (FORMAT parquet) of read_csv, snappy, prices as DOUBLE because that is
# what read_csv infers).
#
# Cases, each timed by harness/timer (wall, CPU, peak RSS of the largest
# process); every DuckDB case is a whole node process (start-up included)
# running one statement with 2 threads, see harness/scan_duckdb.mjs:
#   q6      TPC-H Q6's filter (a year of ship dates, discount 0.05 to
#           0.07, quantity under 24, about 2% of the rows).  colscan
#           selects Q6's sum input, l_extendedprice and l_discount, and
#           writes it to /dev/null: from csv2col's pipe, from li.col and
#           from both Parquet files.  When colscan --schema accepts
#           "l_extendedprice * l_discount AS r" (a decimal(36,4), refused
#           for now) it selects the product instead.  DuckDB answers
#           the whole query, SELECT sum(l_extendedprice * l_discount)
#           FROM ... WHERE Q6, over the CSV and each Parquet file: it
#           also does the sum, which colscan leaves to a later stage.
#   wide    a selective filter (quantity under 5, ship mode AIR, about
#           1%) with SELECT *, written as CSV: csv2col | colscan |
#           col2csv, colscan FILE | col2csv for li.col and both Parquet
#           files; DuckDB's COPY (SELECT * ... WHERE ...) TO out.csv
#           over the CSV and both Parquet files.
#   pass    csv2col | col2csv beside csv2col | colscan | col2csv: what
#           an extra stage that keeps everything costs.
#   count   colscan --count of li.col, li.parquet and dd.parquet beside
#           DuckDB's SELECT count(*) of each Parquet file; then
#           sum(l_quantity), colagg over each of them (checked: SF0.1's
#           15334802 times SCALE) beside DuckDB's over dd.parquet.
#   floors  context, subtracted from nothing: colscan --version (a
#           process loading colscan's libraries and reading nothing),
#           cat li.col > /dev/null, csv2col li.csv > /dev/null (the CSV
#           cases' first stage alone) and DuckDB startup (node loading
#           DuckDB and connecting).
#
# Answers before times: DuckDB's exact row count and decimal sum of
# l_extendedprice * l_discount under each condition must be the same from
# the CSV and from both Parquet files; colscan --count under each
# condition, from every input, must be DuckDB's count; the rows colscan
# writes for q6, as CSV, must have DuckDB's count and sum (in cents,
# exactly); every wide output (colscan's and DuckDB's) must have the
# count's lines plus a header; both pass-through outputs must be the CSV
# byte for byte; colscan --count with no condition must be the line
# count.  A wrong answer stops the run.
#
# Last, the ratios the targets are stated in: DuckDB over csv2col |
# colscan from CSV (target >= 2), DuckDB on Parquet over colscan on
# li.col (target > 1), DuckDB over colscan on the same Parquet file
# (target > 1), the pass-through stage's overhead (target < 10%) and
# colscan --count's whole-process time (target < 5 ms).
#
# Exit status: 0 done (or skipped: no data), 1 a wrong answer or a failed
# run, 2 a missing binary or tool.
set -eu

. "$(dirname "$0")/lib.sh"
SCALE=${SCALE:-1}
RUNS=${RUNS:-3}
bench_init scan
need_tools csv2col col2csv colscan col2parquet
need_duckdb

# The conditions, spelt once and given as they are to colscan and to
# DuckDB; exported so the pipelines the timer runs under sh -c see them.
SCAN_Q6="l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'"
SCAN_Q6="$SCAN_Q6 AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
SCAN_WIDE="l_quantity < 5 AND l_shipmode = 'AIR'"
export SCAN_Q6 SCAN_WIDE

# ---- data: CSV, MLSPILL3, colpipe's Parquet, DuckDB's Parquet ----
bench_lineitem
csv="$tmp/li.csv" col="$tmp/li.col" cpq="$tmp/li.parquet" dpq="$tmp/dd.parquet"
"$bin/csv2col" "$csv" >"$col" || die 1 "csv2col failed"
"$bin/col2parquet" -o "$cpq" "$col" || die 1 "col2parquet failed"
node harness/scan_duckdb.mjs copy "$csv" "$dpq" ||
    die 1 "DuckDB cannot write Parquet"
want=$(($(wc -l <"$csv") - 1))
say "scan bench: lineitem x $SCALE, $want rows, $(($(wc -c <"$csv") /
    1000000)) MB of CSV, $(($(wc -c <"$col") / 1000000)) MB of MLSPILL3," \
    "Parquet $(($(wc -c <"$cpq") / 1000000)) MB (col2parquet) and" \
    "$(($(wc -c <"$dpq") / 1000000)) MB (DuckDB)"

# Q6's sum input: the product itself once colscan can make it.
if "$bin/colscan" --schema -s "l_extendedprice * l_discount AS r" "$col" \
    >/dev/null 2>&1; then
	SCAN_SEL="l_extendedprice * l_discount AS r"
	say "scan bench: q6 selects the product"
else
	SCAN_SEL="l_extendedprice, l_discount"
	say "scan bench: q6 selects l_extendedprice, l_discount" \
	    "(colscan cannot make their product yet)"
fi
export SCAN_SEL

# ---- answers first ----
# DuckDB's answer under each condition, the same from every file.
q6_ans=$(node harness/scan_duckdb.mjs check "$csv" "$SCAN_Q6") ||
    die 1 "DuckDB cannot read the CSV"
wide_ans=$(node harness/scan_duckdb.mjs check "$csv" "$SCAN_WIDE") ||
    die 1 "DuckDB cannot read the CSV"
for f in "$cpq" "$dpq"; do
	got=$(node harness/scan_duckdb.mjs check "$f" "$SCAN_Q6") ||
	    die 1 "${f##*/}: DuckDB cannot read it"
	[ "$got" = "$q6_ans" ] || die 1 "${f##*/}: q6 $got; want $q6_ans"
	got=$(node harness/scan_duckdb.mjs check "$f" "$SCAN_WIDE") ||
	    die 1 "${f##*/}: DuckDB cannot read it"
	[ "$got" = "$wide_ans" ] ||
	    die 1 "${f##*/}: wide $got; want $wide_ans"
done
q6_rows=$(printf '%s' "$q6_ans" | sed 's/^rows=\([0-9]*\) .*/\1/')
q6_sum=$(printf '%s' "$q6_ans" | sed 's/.* sum=//; s/\.//')
wide_rows=$(printf '%s' "$wide_ans" | sed 's/^rows=\([0-9]*\) .*/\1/')
say "scan bench: DuckDB: q6 $q6_ans, wide $wide_ans"
sel=$(awk -v a="$wide_rows" -v b="$want" 'BEGIN { printf "%.2f", 100 * a / b }')
awk -v s="$sel" 'BEGIN { exit !(s >= 0.5 && s <= 2) }' ||
    die 1 "wide: $sel% of the rows pass, not about 1%"

# colscan --count under each condition, from every input.
cs="$bin/colscan"
for c in Q6 WIDE; do
	eval "cond=\$SCAN_$c"
	[ $c = Q6 ] && w=$q6_rows || w=$wide_rows
	for f in "$col" "$cpq" "$dpq"; do
		got=$("$cs" --count -w "$cond" "$f") ||
		    die 1 "colscan --count -w $c ${f##*/} failed"
		[ "$got" = "$w" ] ||
		    die 1 "colscan --count -w $c ${f##*/}: $got, want $w"
	done
	got=$("$bin/csv2col" "$csv" | "$cs" --count -w "$cond") ||
	    die 1 "csv2col | colscan --count -w $c failed"
	[ "$got" = "$w" ] ||
	    die 1 "csv2col | colscan --count -w $c: $got, want $w"
done
for f in "$col" "$cpq" "$dpq"; do
	got=$("$cs" --count "$f") || die 1 "colscan --count ${f##*/} failed"
	[ "$got" = "$want" ] ||
	    die 1 "colscan --count ${f##*/}: $got, want $want"
done

# q6's rows as written, in cents (or, for the product, ten-thousandths)
# summed exactly: awk's doubles hold integers to 2^53.
q6sum() {
	"$bin/col2csv" --no-header | awk -F, -v prod="$1" '
	function c(x) { return int(x * 100 + (x < 0 ? -0.5 : 0.5)) }
	{ n++; if (prod) s += int($1 * 10000 + ($1 < 0 ? -0.5 : 0.5))
	       else s += c($1) * c($2) }
	END { printf "%d %.0f\n", n, s }'
}
prod=0
[ "$SCAN_SEL" = "l_extendedprice, l_discount" ] || prod=1
for f in csv "$col" "$cpq" "$dpq"; do
	if [ "$f" = csv ]; then
		got=$("$bin/csv2col" "$csv" |
		    "$cs" -w "$SCAN_Q6" -s "$SCAN_SEL" | q6sum $prod)
	else
		got=$("$cs" -w "$SCAN_Q6" -s "$SCAN_SEL" "$f" | q6sum $prod)
	fi
	[ "$got" = "$q6_rows $q6_sum" ] ||
	    die 1 "q6 from ${f##*/}: rows and sum $got, want $q6_rows $q6_sum"
done

# wide: every output as CSV with a header line.
lines() { [ "$(wc -l <"$1")" -eq $((wide_rows + 1)) ] ||
    die 1 "wide $2: $(wc -l <"$1") lines, want $((wide_rows + 1))"; }
"$bin/csv2col" "$csv" | "$cs" -w "$SCAN_WIDE" | "$bin/col2csv" \
    >"$tmp/out.csv" || die 1 "wide from CSV failed"
lines "$tmp/out.csv" "csv2col | colscan"
for f in "$col" "$cpq" "$dpq"; do
	"$cs" -w "$SCAN_WIDE" "$f" | "$bin/col2csv" >"$tmp/out.csv" ||
	    die 1 "wide from ${f##*/} failed"
	lines "$tmp/out.csv" "colscan ${f##*/}"
done
for f in "$csv" "$cpq" "$dpq"; do
	node harness/scan_duckdb.mjs wide "$f" "$SCAN_WIDE" "$tmp/out.csv" ||
	    die 1 "DuckDB wide from ${f##*/} failed"
	lines "$tmp/out.csv" "DuckDB ${f##*/}"
done

# pass: both pipelines give the CSV back byte for byte.
"$bin/csv2col" "$csv" | "$bin/col2csv" >"$tmp/out.csv" ||
    die 1 "csv2col | col2csv failed"
cmp -s "$tmp/out.csv" "$csv" || die 1 "csv2col | col2csv: not the input"
"$bin/csv2col" "$csv" | "$cs" | "$bin/col2csv" >"$tmp/out.csv" ||
    die 1 "csv2col | colscan | col2csv failed"
cmp -s "$tmp/out.csv" "$csv" ||
    die 1 "csv2col | colscan | col2csv: not the input"
rm -f "$tmp/out.csv"
say "scan bench: answers right"

# ---- times ----
# run VAR NAME CMD...: times CMD (its output to $tmp/out) and prints its
# row; its best wall and CPU times are left in $VAR and ${VAR}_cpu (VAR
# "-" keeps nothing).
row() {
	printf '%-34s %9s %9s %9s %8s\n' "$1" "$(jget "$2" best_wall_ms)" \
	    "$(jget "$2" median_wall_ms)" "$(jget "$2" best_cpu_ms)" \
	    "$(jget "$2" peak_rss_mb)"
}
run() {
	var=$1 name=$2
	shift 2
	res=$("$timer" -n "$RUNS" -w 1 -o "$tmp/out" -- "$@") ||
	    die 1 "$name: failed"
	rm -f "$tmp/out" "$tmp/out.csv"
	row "$name" "$res"
	[ "$var" = - ] && return
	eval "$var=\$(jget \"\$res\" best_wall_ms)"
	eval "${var}_cpu=\$(jget \"\$res\" best_cpu_ms)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# vs NUM DEN: "Wx (cpu Cx)", NUM's best times over DEN's.
vs() {
	eval "a=\$$1 b=\$$2 ac=\$${1}_cpu bc=\$${2}_cpu"
	printf '%sx (cpu %sx)' "$(ratio "$a" "$b")" "$(ratio "$ac" "$bc")"
}
export bin csv tmp
dd="node harness/scan_duckdb.mjs"

printf '%-34s %9s %9s %9s %8s\n' case best_ms median_ms cpu_ms rss_MiB
# Floors, as context for the cases after them: a process of colscan's
# that reads nothing, the bytes of li.col, the CSV parse alone, and node
# with DuckDB loaded.
run - "floor colscan --version" "$cs" --version
run - "floor cat li.col" cat "$col"
run - "floor csv2col li.csv" "$bin/csv2col" "$csv"
run - "DuckDB startup" $dd startup
run q6_pipe "q6 csv2col|colscan" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL"'
run q6_col "q6 colscan li.col" "$cs" -w "$SCAN_Q6" -s "$SCAN_SEL" "$col"
run q6_cpq "q6 colscan li.parquet" "$cs" -w "$SCAN_Q6" -s "$SCAN_SEL" "$cpq"
run q6_dpq "q6 colscan dd.parquet" "$cs" -w "$SCAN_Q6" -s "$SCAN_SEL" "$dpq"
run q6_dcsv "q6 DuckDB li.csv (sum)" $dd q6 "$csv" "$SCAN_Q6"
run q6_dcpq "q6 DuckDB li.parquet (sum)" $dd q6 "$cpq" "$SCAN_Q6"
run q6_ddpq "q6 DuckDB dd.parquet (sum)" $dd q6 "$dpq" "$SCAN_Q6"

run w_pipe "wide csv2col|colscan|col2csv" sh -c '"$bin/csv2col" "$csv" |
    "$bin/colscan" -w "$SCAN_WIDE" | "$bin/col2csv" >"$tmp/out.csv"'
for f in li.col li.parquet dd.parquet; do
	run "w_$(echo $f | tr -cd a-z)" "wide colscan $f|col2csv" sh -c \
	    '"$bin/colscan" -w "$SCAN_WIDE" "$tmp/$0" |
	    "$bin/col2csv" >"$tmp/out.csv"' "$f"
done
for f in li.csv li.parquet dd.parquet; do
	run "w_d$(echo $f | tr -cd a-z)" "wide DuckDB $f" \
	    $dd wide "$tmp/$f" "$SCAN_WIDE" "$tmp/out.csv"
done

run p_two "pass csv2col|col2csv" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/col2csv" >"$tmp/out.csv"'
run p_three "pass csv2col|colscan|col2csv" sh -c \
    '"$bin/csv2col" "$csv" | "$bin/colscan" | "$bin/col2csv" >"$tmp/out.csv"'

for f in li.col li.parquet dd.parquet; do
	run "c_$(echo $f | tr -cd a-z)" "count colscan $f" "$cs" --count \
	    "$tmp/$f"
done
for f in li.parquet dd.parquet; do
	run - "count DuckDB $f" $dd count "$tmp/$f"
done
# sum(l_quantity) with colagg: every input must give SF0.1's 15334802
# times the copies before it is timed.
if [ -x "$bin/colagg" ]; then
	for f in li.col li.parquet dd.parquet; do
		got=$("$bin/colagg" "sum(l_quantity) AS s" "$tmp/$f" |
		    "$bin/col2csv" --no-header | sed 's/\.00*$//')
		[ "$got" = "$((15334802 * SCALE))" ] ||
		    die 1 "sum(l_quantity) from $f: $got, want" \
		    "$((15334802 * SCALE))"
		run "s_$(echo $f | tr -cd a-z)" "sum colagg $f" \
		    "$bin/colagg" "sum(l_quantity)" "$tmp/$f"
	done
else
	say "scan bench: sum(l_quantity): colagg missing: skipped"
fi
run s_dd "sum DuckDB dd.parquet" $dd sum "$dpq"

# ---- the targets ----
# Wall time is what the targets are stated in; CPU is beside it because
# on a loaded machine it moves less (DuckDB's 2 threads count twice).
echo "q6 DuckDB li.csv over csv2col|colscan: $(vs q6_dcsv q6_pipe)" \
    "(target >= 2)"
echo "q6 DuckDB dd.parquet over colscan li.col: $(vs q6_ddpq q6_col)" \
    "(target > 1)"
echo "q6 DuckDB over colscan, same Parquet: li.parquet" \
    "$(vs q6_dcpq q6_cpq), dd.parquet $(vs q6_ddpq q6_dpq) (target > 1)"
echo "wide DuckDB li.csv over csv2col|colscan|col2csv:" \
    "$(vs w_dlicsv w_pipe) (target >= 2)"
echo "wide DuckDB dd.parquet over colscan li.col|col2csv:" \
    "$(vs w_dddparquet w_licol) (target > 1)"
echo "wide DuckDB over colscan|col2csv, same Parquet: li.parquet" \
    "$(vs w_dliparquet w_liparquet), dd.parquet" \
    "$(vs w_dddparquet w_ddparquet) (target > 1)"
echo "pass-through colscan stage: $(awk -v a="$p_three" -v b="$p_two" \
    -v c="$p_three_cpu" -v d="$p_two_cpu" \
    'BEGIN { printf "%+.1f%% (cpu %+.1f%%)", 100 * (a - b) / b,
    100 * (c - d) / d }') (target < 10%)"
echo "colscan --count: li.col $c_licol ms, li.parquet $c_liparquet ms," \
    "dd.parquet $c_ddparquet ms (target < 5 ms)"
if [ -x "$bin/colagg" ]; then
	echo "sum DuckDB dd.parquet over colagg, same Parquet: li.parquet" \
	    "$(vs s_dd s_liparquet), dd.parquet $(vs s_dd s_ddparquet);" \
	    "over colagg li.col $(vs s_dd s_licol) (target > 1)"
fi
