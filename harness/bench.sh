#!/bin/sh
# bench.sh - colpipe's benchmark: one table of cases over TPC-H data,
# every answer checked before anything is timed, the peers (DuckDB, GNU
# sort, the raw floors) timed in the same run, one JSON record per run.
#
#	make bench [SF=0.1|1|...] [CASES=family,...] [RUNS=N]
#	BUILD=build/release harness/bench.sh [--compare OLD.json]
#
# Environment: BUILD (whose bin/ is measured), SF (scale factor, default
# 0.1: $COLPIPE_SHARED/data/tpch/sf0.1 when it is there, else generated
# like every other SF by $BUILD/harness/bin/tpchgen -s SF), CASES (a
# comma-separated list of families, default all: startup scan filter
# pipe join agg sort parquet tpch), RUNS (timed runs per case, default
# 3), WARMUPS (untimed runs before them, default 1 below SF 1 and 0 from
# SF 1 on, where the case's checked answer run, the last run of it
# before its timed ones, is its warm-up), LONG_RUNS (timed runs of the
# TPC-H cases, default RUNS below SF 1; from SF 1 on 0: the answer run,
# timed like any run, is the one timed run), QUERIES (the TPC-H query
# numbers, default 1 to 22), MEM (the in-memory budget of coljoin and
# colagg, default 1G), SMALL (their spilling budget, default 8M), SORTMEM
# (colsort's and GNU sort's budget, default 64M: at SF0.1 that spills;
# below SF 0.1 the two default to 256K and 2M), RECORDS (where the record
# goes, default harness/records), BENCH_CACHE (where generated tables
# and the files derived from them are kept between runs, default
# $TMPDIR/colpipe-bench-cache; "none" keeps nothing), BENCH_CACHE_KEEP
# (how many tables directories, and how many derived ones, the cache
# keeps for each SF: the most recently used, default 2), BENCH_EXTRA (a
# file of more case lines, sourced after the table: how
# tests/cli/bench.bats adds a deliberately wrong peer), COLPIPE_SHARED,
# TMPDIR (outputs and spill files: about twice the CSV; the cache holds
# about four times the CSV).
#
# Order of work:
#  1. Data, untimed: the eight tables as CSV, their .col files, Parquet
#     files of lineitem (col2parquet's and DuckDB's) and orders
#     (DuckDB's), whatever the chosen families read; each file's SHA-256
#     goes in the record.  Generated tables are kept in BENCH_CACHE under
#     tpchgen's hash and SF, the derived files and DuckDB's reference
#     answers under the data's hash and the hashes of the tools and
#     programs that made them: a second run over the same data hashes
#     the files again but makes none of them again.
#  2. Answers: every case runs once under harness/timer with its output
#     kept, and its check (a shell test against DuckDB's answer on the
#     same files, or a byte comparison with the input of a round trip)
#     must pass; a spill case must also say on --stats that it spilled,
#     and leave its temporary directory empty.  One wrong answer stops
#     the run with status 1, before anything is timed and without a
#     record.
#  3. Times: harness/timer runs each case WARMUPS + RUNS (LONG_RUNS for
#     TPC-H) times as one whole process (bash -c COMMAND): wall, CPU and
#     peak RSS from wait4.  A case with 0 runs keeps its answer run's
#     figures (one run).  A failed run stops everything; spill
#     directories are checked empty again after each case.
#  4. The record, $RECORDS/<UTC date>-<sha>[-SF<sf>].json, and the table
#     (harness/bench_report.mjs): each case's best and median, CPU, peak
#     RSS and its ratio to its peer (colpipe over peer: below 1 is
#     colpipe faster).  With --compare OLD.json, harness/compare.mjs then
#     holds the new record against OLD.
#
# A case line:   c ID PEER 'CHECK' 'COMMAND' 'WHAT'
# ID is FAMILY/NAME; PEER the id of the case it is held against, or -.
# COMMAND is run by bash -c with B (the tools), H (harness/), D (the
# data directory: csv/, col/, lineitem.csv.zst, li.parquet, dd.parquet,
# do.parquet, li.tbl, tpch.duckdb; the commands only read it) and T (the case's scratch
# directory, T/spill its temporary directory; a file the case writes is
# T/o) in its environment.  CHECK is run by
# this shell after the answer run, with OUT the file of the command's
# standard output (or T/o when the command wrote one).
#
# Exit status: 0 recorded, 1 a wrong answer or a failed run, 2 a missing
# binary, tool or data, or a usage error.
set -eu
. "$(dirname "$0")/lib.sh"

usage()
{
	say "usage: harness/bench.sh [--compare OLD.json]"
	say "  (SF, CASES, RUNS, WARMUPS, QUERIES from the environment;" \
	    "see the comment at the top)"
	exit 2
}
compare=
while [ $# -gt 0 ]; do
	case $1 in
	--compare)
		[ $# -ge 2 ] || usage
		compare=$2
		shift 2
		;;
	*) usage ;;
	esac
done
[ -z "$compare" ] || [ -r "$compare" ] || {
	say "bench: --compare $compare: no such record"
	exit 2
}
SF=${SF:-0.1}
RUNS=${RUNS:-3}
# From SF 1 on a case's answer run is its warm-up, and the TPC-H cases,
# 88 of them and each seconds long, are timed once: their answer run.
if awk -v s="$SF" 'BEGIN { exit !(s >= 1) }'; then
	WARMUPS=${WARMUPS:-0}
	LONG_RUNS=${LONG_RUNS:-0}
else
	WARMUPS=${WARMUPS:-1}
	LONG_RUNS=${LONG_RUNS:-$RUNS}
fi
MEM=${MEM:-1G}
# The spilling budgets must be smaller than the data: below SF 0.1
# (the self-test's SF 0.01) they shrink with it.
if awk -v s="$SF" 'BEGIN { exit !(s < 0.1) }'; then
	SMALL=${SMALL:-256K}
	SORTMEM=${SORTMEM:-2M}
else
	SMALL=${SMALL:-8M}
	SORTMEM=${SORTMEM:-64M}
fi
QUERIES=${QUERIES:-$(seq 1 22)}
ALL="startup scan filter pipe join agg sort parquet tpch"
CASES=${CASES:-all}
[ "$CASES" = all ] && CASES=$ALL
CASES=$(echo "$CASES" | tr ',' ' ')
for f in $CASES; do
	case " $ALL " in
	*" $f "*) ;;
	*) say "bench: CASES: no family $f (families: $ALL)"; exit 2 ;;
	esac
done
bench_init bench
RECORDS=${RECORDS:-harness/records}
need_tools csv2col col2csv colscan colagg coljoin colsort col2parquet
need_duckdb
command -v zstd >/dev/null || die 2 "zstd: not found (make deps)"
command -v sort >/dev/null || die 2 "sort: not found"
tpchgen=$BUILD/harness/bin/tpchgen

PATH=$bin:$PATH
export PATH
want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }

CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/colpipe-bench-cache}
[ "$CACHE" = none ] && CACHE=$tmp/cache
KEEP=${BENCH_CACHE_KEEP:-2}
case $KEEP in '' | *[!0-9]* | 0) die 2 "BENCH_CACHE_KEEP=$KEEP: want a" \
    "count of 1 or more" ;; esac
mkdir -p "$CACHE" "$tmp/cases" "$tmp/ans"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "bench: families: $CASES; SF $SF; $RUNS runs ($LONG_RUNS for TPC-H)" \
    "after $WARMUPS warm-up(s); load average $load_start"

# ---- 1. data ----
# made DIR STAMP: true when STAMP (a file under DIR) says DIR's item was
# finished; an interrupted run leaves no stamp, so the item is made anew.
made() { [ -e "$1/.made.$2" ]; }
mark() { : >"$1/.made.$2"; }
tables="region nation supplier customer part partsupp orders lineitem"
src="$shared/data/tpch/sf0.1"
if [ "$SF" = 0.1 ] && [ -r "$src/lineitem.csv.zst" ]; then
	gdir=$CACHE/shared-$(for t in $tables; do sha <"$src/$t.csv.zst"
	    done | sha | cut -c1-16)
	csvdir=$gdir/csv
	if ! made "$gdir" csv; then
		rm -rf "$csvdir"
		mkdir -p "$csvdir"
		for t in $tables; do
			zstd -q -dc "$src/$t.csv.zst" >"$csvdir/$t.csv" ||
			    die 2 "$src/$t.csv.zst: cannot decompress"
		done
		mark "$gdir" csv
	fi
	data_from="$src/*.csv.zst (decompressed)"
else
	[ -x "$tpchgen" ] || die 2 "$tpchgen: not built (make)"
	# Keyed by tpchgen's sources, not its binary: relinking it with a
	# changed libcore (every change to the tools) leaves its tables as
	# they were.  The files are hashed below whatever the key says.
	gdir=$CACHE/gen-sf$SF-$(cat "$top"/harness/tpchgen/*.[ch] | sha |
	    cut -c1-16)
	csvdir=$gdir/csv
	if made "$gdir" csv; then
		data_from="tpchgen -s $SF (kept in $gdir)"
	else
		rm -rf "$csvdir"
		mkdir -p "$csvdir"
		"$tpchgen" -s "$SF" -o "$csvdir" || die 1 "tpchgen -s $SF failed"
		mark "$gdir" csv
		data_from="tpchgen -s $SF"
	fi
fi
# Every file is hashed on every run: the record's data identity is what
# is read now, not what a cache says it was.
: >"$tmp/filesha"
for f in "$csvdir"/*.csv; do
	printf 'csv/%s %s %s\n' "${f##*/}" "$(sha <"$f")" \
	    "$(wc -c <"$f" | tr -d ' ')" >>"$tmp/filesha"
done
# One hash for the data: the CSV files' hashes in name order.
data_sha=$(cut -d' ' -f2 "$tmp/filesha" | sha)
# The derived files depend on the data and on what made them.
ddver=$(node harness/duckdb_csv.mjs --startup | sed 's/^duckdb=//')
dkey=$( {
	echo "$data_sha $ddver"
	for t in csv2col col2csv col2parquet; do sha <"$bin/$t"; done
	cat harness/*_duckdb.mjs harness/duckdb_csv.mjs harness/tpch/Makefile |
	    sha
} | sha | cut -c1-16)
D=$CACHE/data-$dkey
mkdir -p "$D/memo"
ln -sfn "$csvdir" "$D/csv"
# The cache keeps, for each SF, the KEEP most recently used directories
# of tables and of derived files (at SF1 1.1 and up to 2.4 GB each; a
# derived directory's SF is in its .sf, the shared files are SF 0.1's);
# older ones of its own naming go, nothing else in it is touched.  Two
# runs at once with more than KEEP keys between them may remove each
# other's: run them with separate caches.
[ -e "$D/.sf" ] || printf '%s\n' "$SF" >"$D/.sf"
touch "$gdir" "$D"
h=[0-9a-f]
h16=$h$h$h$h$h$h$h$h$h$h$h$h$h$h$h$h
# cache_prune: the directories named on stdin, one a line, but the KEEP
# most recently used.
cache_prune() {
	while IFS= read -r d; do
		[ -d "$d" ] && [ ! -L "$d" ] && stat -c '%Y %n' -- "$d"
	done | sort -rn | tail -n +$((KEEP + 1)) | cut -d' ' -f2- |
	    while IFS= read -r d; do
		case ${d##*/} in
		gen-sf*-$h16 | shared-$h16 | data-$h16)
			rm -rf -- "$d"
			say "bench: cache: removed ${d##*/}" \
			    "(least recently used)"
			;;
		esac
	done
}
if [ "${BENCH_CACHE:-}" != none ]; then
	for d in "$CACHE"/gen-sf"$SF"-*; do
		printf '%s\n' "$d"
	done | cache_prune
	if [ "$SF" = 0.1 ]; then
		for d in "$CACHE"/shared-*; do
			printf '%s\n' "$d"
		done | cache_prune
	fi
	# A derived directory without .sf predates it: any SF's.
	for d in "$CACHE"/data-*; do
		[ "$(cat "$d/.sf" 2>/dev/null || echo "$SF")" = "$SF" ] &&
		    printf '%s\n' "$d"
	done | cache_prune
fi
B=$bin H=$top/harness T=$tmp/w
export B H D T MEM SMALL SORTMEM
csv=$D/csv/lineitem.csv
rows=$(($(wc -l <"$csv") - 1))
# Only what the chosen families read: on a loaded machine every node
# start-up is seconds.
if want tpch; then
	# Not a sub-make of make bench's: its own jobs, no jobserver.  The
	# Makefile itself remakes a .col only when its CSV is newer.
	MAKEFLAGS= make -s -f harness/tpch/Makefile DATA="$D/csv" \
	    COL="$D/col" BIN="$bin" tables >&2 ||
	    die 1 "csv2col of the tables failed"
else
	mkdir -p "$D/col"
	for t in lineitem orders; do
		made "$D" "$t.col" && continue
		"$bin/csv2col" "$D/csv/$t.csv" >"$D/col/$t.col" ||
		    die 1 "csv2col $t.csv failed"
		mark "$D" "$t.col"
	done
fi
if { want scan || want filter || want parquet; } && ! made "$D" li.parquet
then
	"$bin/col2parquet" -o "$D/li.parquet" "$D/col/lineitem.col" ||
	    die 1 "col2parquet of lineitem failed"
	mark "$D" li.parquet
fi
if { want scan || want filter || want agg || want join; } &&
    ! made "$D" dd.parquet; then
	node harness/scan_duckdb.mjs copy "$csv" "$D/dd.parquet" ||
	    die 1 "DuckDB cannot write lineitem as Parquet"
	mark "$D" dd.parquet
fi
if want join && ! made "$D" do.parquet; then
	node harness/scan_duckdb.mjs copy "$D/csv/orders.csv" \
	    "$D/do.parquet" || die 1 "DuckDB cannot write orders as Parquet"
	mark "$D" do.parquet
fi
if want scan && ! made "$D" lineitem.csv.zst; then
	zstd -q -1 -c "$csv" >"$D/lineitem.csv.zst" ||
	    die 1 "zstd of lineitem.csv failed"
	mark "$D" lineitem.csv.zst
fi
if want sort && ! made "$D" li.tbl; then
	"$bin/col2csv" -f tsv --no-header "$D/col/lineitem.col" |
	    tr '\t' '|' >"$D/li.tbl"
	mark "$D" li.tbl
fi
if want tpch && ! made "$D" tpch.duckdb; then
	rm -f "$D/tpch.duckdb" "$D/tpch.duckdb.wal"
	node harness/tpch_duckdb.mjs load "$D/csv" "$D/tpch.duckdb" ||
	    die 1 "DuckDB cannot load the tables"
	mark "$D" tpch.duckdb
fi
for f in "$D/li.parquet" "$D/dd.parquet" "$D/do.parquet"; do
	[ -f "$f" ] || continue
	printf '%s %s %s\n' "${f##*/}" "$(sha <"$f")" \
	    "$(wc -c <"$f" | tr -d ' ')" >>"$tmp/filesha"
done
say "bench: data from $data_from: lineitem $rows rows," \
    "$(du -smL "$D/csv" | cut -f1) MB of CSV; derived files in $D"

# ---- the reference answers, from DuckDB over the CSV ----
# memo COMMAND...: COMMAND's output, kept in D/memo under the hash of the
# command line (D names the data and the programs' hashes), so a second
# run over the same data asks DuckDB nothing it asked before.
memo() {
	m=$D/memo/$(printf '%s\n' "$@" | sha | cut -c1-24)
	if [ ! -e "$m" ]; then
		"$@" >"$m.new" || { rm -f "$m.new"; return 1; }
		mv "$m.new" "$m"
	fi
	cat "$m"
}
qty=$("$bin/colagg" "sum(l_quantity) AS s" "$D/col/lineitem.col" |
    "$bin/col2csv" --no-header | sed 's/\.00*$//')
if want scan || want parquet || want join; then
	dd_li=$(memo node harness/parquet_duckdb.mjs answer "$csv") ||
	    die 1 "DuckDB cannot read lineitem.csv"
	case $dd_li in
	"rows=$rows sum_qty=$qty.00 "*) ;;
	*) die 1 "lineitem: DuckDB reads $dd_li, colagg sums l_quantity" \
	    "to $qty over $rows rows" ;;
	esac
fi
# The conditions, spelt once, given as they are to colscan and DuckDB.
SCAN_Q6="l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'"
SCAN_Q6="$SCAN_Q6 AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
SCAN_WIDE="l_quantity < 5 AND l_shipmode = 'AIR'"
SCAN_SEL="l_extendedprice, l_discount"
SCAN_Q6_COLS="l_quantity,l_extendedprice,l_discount,l_shipdate"
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
export SCAN_Q6 SCAN_Q6_COLS SCAN_WIDE SCAN_SEL AGG_Q1W AGG_Q1K AGG_Q1 AGG_HC \
    AGG_CD
if want scan || want filter; then
	q6_ans=$(memo node harness/scan_duckdb.mjs check "$csv" "$SCAN_Q6") ||
	    die 1 "DuckDB: q6 failed"
	wide_ans=$(memo node harness/scan_duckdb.mjs check "$csv" \
	    "$SCAN_WIDE") ||
	    die 1 "DuckDB: wide failed"
	q6_rows=${q6_ans%% *} q6_rows=${q6_rows#rows=}
	q6_sum=${q6_ans#* sum=}
	wide_rows=${wide_ans%% *} wide_rows=${wide_rows#rows=}
fi
if want agg; then
	q1_ans=$(memo node harness/agg_duckdb.mjs check q1 "$csv") ||
	    die 1 "DuckDB: q1 failed"
	hc_ans=$(memo node harness/agg_duckdb.mjs check hc "$csv") ||
	    die 1 "DuckDB: hc failed"
	cd_ans=$(memo node harness/agg_duckdb.mjs check cd "$csv") ||
	    die 1 "DuckDB: cd failed"
fi
sort_limit=none
if want sort; then
	if ! made "$D" sort.want; then
		sort -t'|' -k11,11 -k1,1n -S "$SORTMEM" -T "$tmp" "$D/li.tbl" |
		    cut -d'|' -f1,11 >"$D/sort.want"
		mark "$D" sort.want
	fi
	# DuckDB at SORTMEM when it accepts it, else the smallest of these
	# that completes (recorded in the case's command), found once for
	# the data.
	lf=$D/memo/sort_limit.$SORTMEM
	sort_limit=$(cat "$lf" 2>/dev/null || :)
	mb=$(echo "$SORTMEM" | sed -n 's/^\([0-9]*\)[Mm].*/\1/p')
	[ -n "$sort_limit" ] ||
	for lim in ${mb:+${mb}MB} 96MB 128MB 256MB 512MB 1GB 4GB; do
		if node harness/sort_duckdb.mjs "$csv" "$tmp/dd.sorted" "$lim" \
		    2>/dev/null; then
			sort_limit=$lim
			break
		fi
	done
	rm -rf "$tmp/dd.sorted" "$tmp/duckdb.tmp"
	[ -n "$sort_limit" ] || die 1 "DuckDB cannot sort lineitem at 4GB"
	echo "$sort_limit" >"$lf"
fi

# ---- the checks the case table uses (OUT: the answer run's output) ----
# same FILE: OUT is FILE byte for byte.
same() { cmp -s "$OUT" "$1"; }
# lines N: OUT has N lines.
lines() { [ "$(wc -l <"$OUT")" -eq "$1" ]; }
# count N: OUT, an MLSPILL3 stream, has N rows.
count() { [ "$("$bin/colscan" --count "$OUT")" = "$1" ]; }
# number N: OUT is N alone on a line.
number() { [ "$(cat "$OUT")" = "$1" ]; }
# q6sum: OUT (MLSPILL3 of l_extendedprice, l_discount) has DuckDB's q6
# rows, and their products sum to its sum, in cents exactly.
q6sum() {
	got=$("$bin/col2csv" --no-header "$OUT" | awk -F, '
	function c(x) { return int(x * 100 + (x < 0 ? -0.5 : 0.5)) }
	{ n++; s += c($1) * c($2) }
	END { printf "%d %.0f\n", n, s }')
	[ "$got" = "$q6_rows $(echo "$q6_sum" | tr -d .)" ]
}
# near X: OUT holds one number within a relative 1e-9 of X (DuckDB's
# DOUBLE sums add in a thread-dependent order).
near() {
	awk -v x="$1" 'NR == 1 { d = $1 - x; if (d < 0) d = -d
	    ok = d <= 1e-9 * (x < 0 ? -x : x) } END { exit !(NR == 1 && ok) }' \
	    "$OUT"
}
fix4() {
	awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++)
	    if ($i ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) $i = sprintf("%.4f", $i)
	    print }'
}
# q1: OUT (colagg's Q1 groups) sorted is DuckDB's Q1, to 4 decimals.
q1() {
	[ "$("$bin/colsort" -k l_returnflag -k l_linestatus "$OUT" |
	    "$bin/col2csv" --no-header | fix4)" = "$q1_ans" ]
}
# hc: OUT (lineitem by l_orderkey) has DuckDB's groups and sums.
hc() {
	[ "$("$bin/colagg" "count(*), sum(n), sum(q), sum(p)" "$OUT" |
	    "$bin/col2csv" --no-header | fix4)" = "$hc_ans" ]
}
# cdsum: OUT (lineitem by l_suppkey) has DuckDB's groups and sums.
cdsum() {
	[ "$("$bin/colagg" "count(*), sum(parts), sum(n)" "$OUT" |
	    "$bin/col2csv" --no-header | fix4)" = "$cd_ans" ]
}
# ddagg CASE FILE: DuckDB's answer to CASE over FILE is the CSV's.
ddagg() {
	eval "w=\$${1}_ans"
	[ "$(node harness/agg_duckdb.mjs check "$1" "$2")" = "$w" ]
}
# widecsv: OUT is CSV with a header and DuckDB's wide rows.
widecsv() { lines $((wide_rows + 1)); }
# sorted TSV|CSV|TBL: OUT's (l_orderkey, l_shipdate) sequence is GNU
# sort's: OUT as MLSPILL3, CSV without a header, or '|' text.
sorted() {
	case $1 in
	col) "$bin/col2csv" -f tsv --no-header "$OUT" | cut -f1,11 |
	    tr '\t' '|' ;;
	csv) tr -d '"' <"$OUT" | awk -F, '{ print $1 "|" $11 }' ;;
	tbl) cut -d'|' -f1,11 "$OUT" ;;
	esac | cmp -s - "$D/sort.want"
}
# spilled: the case's --stats (T/stats) reports temporary files written.
spilled() {
	grep -Eq ' [1-9][0-9]* (runs|partitions)' "$T/stats" &&
	    ! grep -q ' 0\.0 MB spilled' "$T/stats"
}
# pq FILE: DuckDB reads FILE (Parquet) as the same rows as lineitem.csv.
pq() { [ "$(node harness/parquet_duckdb.mjs answer "$1")" = "$dd_li" ]; }
# tpchans SIDE NN: keeps OUT for the TPC-H check after the answer runs.
tpchans() { cp "$OUT" "$tmp/ans/q$2.$1.csv"; }

# ---- 2. the case table ----
ncase=0
c() {
	fam=${1%%/*}
	want "$fam" || return 0
	ncase=$((ncase + 1))
	n=$(printf '%03d' $ncase)
	printf '%s\n' "$1" >"$tmp/cases/$n.id"
	printf '%s\n' "$2" >"$tmp/cases/$n.peer"
	printf '%s\n' "$3" >"$tmp/cases/$n.check"
	printf '%s\n' "$4" >"$tmp/cases/$n.cmd"
	printf '%s\n' "$5" >"$tmp/cases/$n.what"
	printf '%s\n' "${CASE_RUNS:-$RUNS}" >"$tmp/cases/$n.runs"
}
# Shorthands the commands use (exported, so the record shows the command
# as it was typed and method.variables says what the names are).
LCSV=$D/csv/lineitem.csv OCSV=$D/csv/orders.csv
LCOL=$D/col/lineitem.col OCOL=$D/col/orders.col
LPQ=$D/dd.parquet OPQ=$D/do.parquet
ON='--on l_orderkey=o_orderkey' KEYS='-k l_shipdate -k l_orderkey'
export LCSV OCSV LCOL OCOL LPQ OPQ ON KEYS
L='"$LCSV"'

# Start-up: a process that reads nothing.  bash -c true is the floor of
# every case (each runs under bash -c).
c startup/bash - ':' 'true' 'bash -c true: the shell every case runs under'
for t in csv2col col2csv colscan colagg coljoin colsort col2parquet; do
	c "startup/$t" startup/duckdb "grep -q '^$t ' \"\$OUT\"" \
	    "\"\$B/$t\" --version" "$t --version"
done
c startup/duckdb - '[ ! -s "$OUT" ]' 'node "$H/tpch_duckdb.mjs" startup' \
    'node loads DuckDB and connects, 2 threads'

# Scan: the bytes, the CSV parse, colscan over each stored form.
c scan/cat - "same $L" 'cat "$LCSV"' 'cat lineitem.csv: the floor of a reader'
c scan/csv2col scan/duckdb_count_csv \
    '"$B/col2csv" "$OUT" | cmp -s - "$LCSV"' \
    '"$B/csv2col" "$LCSV"' 'csv2col lineitem.csv (round trip checked)'
c scan/csv2col_pipe scan/csv2col '"$B/col2csv" "$OUT" | cmp -s - "$LCSV"' \
    'cat "$LCSV" | "$B/csv2col"' 'the same from a pipe'
c scan/csv2col_zst scan/csv2col '"$B/col2csv" "$OUT" | cmp -s - "$LCSV"' \
    '"$B/csv2col" "$D/lineitem.csv.zst"' 'the same from lineitem.csv.zst'
c scan/col2csv scan/cat "same $L" '"$B/col2csv" "$LCOL"' \
    'col2csv lineitem.col (byte for byte the CSV)'
c scan/duckdb_count_csv - "[ \"\$(cat \"\$OUT\")\" = 'rows=$rows' ]" \
    'node "$H/duckdb_csv.mjs" --count "$LCSV"' \
    'DuckDB SELECT count(*) FROM read_csv(lineitem.csv)'
c scan/duckdb_csv - \
    "[ \"\$(cat \"\$OUT\")\" = 'rows=$rows sum_l_quantity=$qty' ]" \
    'node "$H/duckdb_csv.mjs" "$LCSV"' \
    'DuckDB CREATE TABLE AS read_csv(lineitem.csv), count and sum'
c scan/q6_csv scan/duckdb_q6_csv q6sum \
    '"$B/csv2col" "$LCSV" | "$B/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL"' \
    'Q6 filter: csv2col | colscan'
c scan/q6_csv_columns scan/duckdb_q6_csv q6sum \
    '"$B/csv2col" --columns "$SCAN_Q6_COLS" "$LCSV" |
    "$B/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL"' \
    'Q6 filter: csv2col --columns (the 4 it reads) | colscan'
c scan/q6_col scan/duckdb_q6_parquet q6sum \
    '"$B/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL" "$LCOL"' \
    'Q6 filter: colscan lineitem.col'
c scan/q6_parquet scan/duckdb_q6_parquet q6sum \
    '"$B/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL" "$D/li.parquet"' \
    'Q6 filter: colscan li.parquet (col2parquet)'
c scan/q6_ddparquet scan/duckdb_q6_parquet q6sum \
    '"$B/colscan" -w "$SCAN_Q6" -s "$SCAN_SEL" "$D/dd.parquet"' \
    "Q6 filter: colscan dd.parquet (DuckDB's)"
c scan/duckdb_q6_csv - 'near "$q6_sum"' \
    'node "$H/scan_duckdb.mjs" q6 "$LCSV" "$SCAN_Q6"' \
    'DuckDB Q6 with its sum over lineitem.csv'
c scan/duckdb_q6_parquet - 'near "$q6_sum"' \
    'node "$H/scan_duckdb.mjs" q6 "$D/dd.parquet" "$SCAN_Q6"' \
    'DuckDB Q6 with its sum over dd.parquet'
c scan/count_col scan/duckdb_count "[ \"\$(cat \"\$OUT\")\" = $rows ]" \
    '"$B/colscan" --count "$LCOL"' 'colscan --count .col'
c scan/count_parquet scan/duckdb_count "[ \"\$(cat \"\$OUT\")\" = $rows ]" \
    '"$B/colscan" --count "$D/li.parquet"' 'colscan --count Parquet'
c scan/duckdb_count - "[ \"\$(cat \"\$OUT\")\" = $rows ]" \
    'node "$H/scan_duckdb.mjs" count "$D/li.parquet"' \
    'DuckDB count(*) of the Parquet file'
c scan/sum_col scan/duckdb_sum "[ \"\$(cat \"\$OUT\")\" = $qty ]" \
    '"$B/colagg" "sum(l_quantity)" "$LCOL" | "$B/col2csv" --no-header |
    sed "s/\.00*\$//"' 'sum(l_quantity): colagg lineitem.col'
c scan/sum_parquet scan/duckdb_sum "[ \"\$(cat \"\$OUT\")\" = $qty ]" \
    '"$B/colagg" "sum(l_quantity)" "$D/li.parquet" | "$B/col2csv" \
    --no-header | sed "s/\.00*\$//"' 'sum(l_quantity): colagg li.parquet'
c scan/duckdb_sum - "[ \"\$(sed 's/\.0*\$//' \"\$OUT\")\" = $qty ]" \
    'node "$H/scan_duckdb.mjs" sum "$D/dd.parquet"' \
    'DuckDB sum(l_quantity) of dd.parquet'

# Filter: a selective condition, every column out as CSV.
c filter/wide_csv filter/duckdb_csv widecsv \
    '"$B/csv2col" "$LCSV" | "$B/colscan" -w "$SCAN_WIDE" | "$B/col2csv"' \
    'l_quantity < 5 AND AIR, SELECT *: csv2col | colscan | col2csv'
c filter/wide_col filter/duckdb_parquet widecsv \
    '"$B/colscan" -w "$SCAN_WIDE" "$LCOL" | "$B/col2csv"' \
    'the same from lineitem.col'
c filter/wide_parquet filter/duckdb_parquet widecsv \
    '"$B/colscan" -w "$SCAN_WIDE" "$D/li.parquet" | "$B/col2csv"' \
    'the same from li.parquet'
c filter/duckdb_csv - widecsv \
    'node "$H/scan_duckdb.mjs" wide "$LCSV" "$SCAN_WIDE" "$T/o"' \
    'DuckDB COPY (SELECT * ... WHERE) TO csv from lineitem.csv'
c filter/duckdb_parquet - widecsv \
    'node "$H/scan_duckdb.mjs" wide "$D/dd.parquet" "$SCAN_WIDE" "$T/o"' \
    'the same from dd.parquet'

# Pipe: what a stage costs.  The floors are cat and a pipe hop.
c pipe/hop pipe/cat "same $L" 'cat "$LCSV" | cat' 'cat | cat: a pipe hop'
c pipe/cat - "same $L" 'cat "$LCSV"' 'cat lineitem.csv'
c pipe/two pipe/hop "same $L" '"$B/csv2col" "$LCSV" | "$B/col2csv"' \
    'csv2col | col2csv (round trip, byte for byte)'
c pipe/three pipe/two "same $L" \
    '"$B/csv2col" "$LCSV" | "$B/colscan" | "$B/col2csv"' \
    'csv2col | colscan | col2csv: one more pass-through stage'

# Join: lineitem with orders; every line item has its order.  The .col
# cases are held against DuckDB over Parquet files of the same rows, the
# end-to-end CSV case against DuckDB over the CSV.
c join/col_mem join/duckdb_parquet "count $rows" \
    '"$B/coljoin" -T "$T/spill" -m "$MEM" $ON "$LCOL" "$OCOL"' \
    'coljoin lineitem.col orders.col at MEM, the join to a pipe'
c join/col_file join/duckdb_parquet "count $rows" \
    '"$B/coljoin" -T "$T/spill" -m "$MEM" $ON -o "$T/o" "$LCOL" "$OCOL"' \
    'the same written to a file (-o)'
c join/col_count join/duckdb_count "number $rows" \
    '"$B/coljoin" -T "$T/spill" -m "$MEM" --count $ON "$LCOL" "$OCOL"' \
    'the same counted (--count: only the keys are read)'
c join/col_spill join/col_mem "count $rows && spilled" \
    '"$B/coljoin" --stats -T "$T/spill" -m "$SMALL" $ON "$LCOL" "$OCOL" \
    2>"$T/stats"' 'the same at SMALL: partitions spilled'
c join/csv join/duckdb_csv "lines $rows" \
    '"$B/coljoin" -T "$T/spill" -m "$MEM" $ON <("$B/csv2col" "$LCSV") \
    <("$B/csv2col" "$OCSV") | "$B/col2csv" --no-header' \
    'end to end: coljoin of two csv2col pipes | col2csv'
c join/duckdb_parquet - 'pq "$OUT"' \
    'node "$H/join_duckdb.mjs" pq "$LPQ" "$OPQ" "$T/o" 1GB' \
    'DuckDB COPY (read_parquet JOIN read_parquet) TO parquet, 1GB'
c join/duckdb_count - "number $rows" \
    'node "$H/join_duckdb.mjs" count "$LPQ" "$OPQ" "$T/o" 1GB' \
    'DuckDB SELECT count(*) of the same join, over the Parquet files'
c join/duckdb_csv - "lines $rows" \
    'node "$H/join_duckdb.mjs" csv "$LCSV" "$OCSV" "$T/o" 1GB' \
    'DuckDB COPY (read_csv JOIN read_csv) TO csv, memory_limit 1GB'

# Aggregate: TPC-H Q1 and a high-cardinality group-by.
c agg/q1_col agg/duckdb_q1_parquet q1 \
    '"$B/colscan" -w "$AGG_Q1W" "$LCOL" |
    "$B/colagg" -m "$MEM" --by "$AGG_Q1K" "$AGG_Q1"' \
    'Q1: colscan lineitem.col | colagg'
c agg/q1_where agg/duckdb_q1_parquet q1 \
    '"$B/colagg" -m "$MEM" -w "$AGG_Q1W" --by "$AGG_Q1K" "$AGG_Q1" "$LCOL"' \
    'Q1: colagg -w over lineitem.col (the filter in the same stage)'
c agg/q1_csv agg/duckdb_q1_csv q1 \
    '"$B/csv2col" "$LCSV" | "$B/colscan" -w "$AGG_Q1W" |
    "$B/colagg" -m "$MEM" --by "$AGG_Q1K" "$AGG_Q1"' \
    'Q1: csv2col | colscan | colagg'
c agg/duckdb_q1_csv - 'ddagg q1 "$LCSV"' \
    'node "$H/agg_duckdb.mjs" run q1 "$LCSV"' 'DuckDB Q1 over lineitem.csv'
c agg/duckdb_q1_parquet - 'ddagg q1 "$D/dd.parquet"' \
    'node "$H/agg_duckdb.mjs" run q1 "$D/dd.parquet"' \
    'DuckDB Q1 over dd.parquet'
c agg/hc_col agg/duckdb_hc_parquet hc \
    '"$B/colagg" -m "$MEM" --by l_orderkey "$AGG_HC" "$LCOL"' \
    'lineitem by l_orderkey (a group an order) at MEM'
c agg/hc_spill agg/hc_col 'hc && spilled' \
    '"$B/colagg" --stats -m "$SMALL" -T "$T/spill" --by l_orderkey \
    "$AGG_HC" "$LCOL" 2>"$T/stats"' 'the same at SMALL: partitions spilled'
c agg/hc_csv agg/duckdb_hc_csv hc \
    '"$B/csv2col" "$LCSV" | "$B/colagg" -m "$MEM" --by l_orderkey "$AGG_HC"' \
    'the same from csv2col | colagg'
c agg/duckdb_hc_csv - 'ddagg hc "$LCSV"' \
    'node "$H/agg_duckdb.mjs" run hc "$LCSV"' \
    'DuckDB by l_orderkey over lineitem.csv'
c agg/duckdb_hc_parquet - 'ddagg hc "$D/dd.parquet"' \
    'node "$H/agg_duckdb.mjs" run hc "$D/dd.parquet"' \
    'DuckDB by l_orderkey over dd.parquet'
c agg/cd_col agg/duckdb_cd_parquet cdsum \
    '"$B/colagg" -m "$MEM" --by l_suppkey "$AGG_CD" "$LCOL"' \
    "count(DISTINCT l_partkey) by l_suppkey (Q16's shape) at MEM"
c agg/cd_spill agg/cd_col 'cdsum && spilled' \
    '"$B/colagg" --stats -m "$SMALL" -T "$T/spill" --by l_suppkey \
    "$AGG_CD" "$LCOL" 2>"$T/stats"' 'the same at SMALL: partitions spilled'
c agg/duckdb_cd_parquet - 'ddagg cd "$D/dd.parquet"' \
    'node "$H/agg_duckdb.mjs" run cd "$D/dd.parquet"' \
    'DuckDB count(DISTINCT) by l_suppkey over dd.parquet'

# Sort: lineitem by (l_shipdate, l_orderkey) under SORTMEM, which spills.
c sort/col sort/gnu 'sorted col && spilled' \
    '"$B/colsort" --stats -m "$SORTMEM" -T "$T/spill" $KEYS "$LCOL" \
    2>"$T/stats"' 'colsort lineitem.col at SORTMEM: runs spilled'
c sort/csv sort/gnu 'sorted csv' \
    '"$B/csv2col" "$LCSV" | "$B/colsort" -m "$SORTMEM" -T "$T/spill" $KEYS |
    "$B/col2csv" --no-header' 'csv2col | colsort | col2csv at SORTMEM'
c sort/gnu - 'sorted tbl' \
    'sort -t"|" -k11,11 -k1,1n -S "$SORTMEM" -T "$T/spill" "$D/li.tbl"' \
    "GNU sort of the same rows as '|' text, -S SORTMEM"
c sort/duckdb - 'sorted csv' \
    "node \"\$H/sort_duckdb.mjs\" \"\$LCSV\" \"\$T/o\" $sort_limit" \
    "DuckDB COPY (read_csv ORDER BY) TO csv, memory_limit $sort_limit"

# Parquet: write (snappy) and read back whole.
c parquet/write parquet/duckdb_write 'pq "$OUT"' \
    '"$B/csv2col" "$LCSV" | "$B/col2parquet" -c snappy -o "$T/o"' \
    'csv2col | col2parquet -c snappy'
c parquet/write_col parquet/duckdb_write 'pq "$OUT"' \
    '"$B/col2parquet" -c snappy -o "$T/o" "$LCOL"' 'col2parquet lineitem.col'
c parquet/duckdb_write - 'pq "$OUT"' \
    'node "$H/parquet_duckdb.mjs" copy "$LCSV" "$T/o" snappy' \
    'DuckDB COPY (read_csv) TO parquet, snappy'
c parquet/write_zstd parquet/duckdb_write_zstd 'pq "$OUT"' \
    '"$B/csv2col" "$LCSV" | "$B/col2parquet" -c zstd -o "$T/o"' \
    'csv2col | col2parquet -c zstd'
c parquet/duckdb_write_zstd - 'pq "$OUT"' \
    'node "$H/parquet_duckdb.mjs" copy "$LCSV" "$T/o" zstd' \
    'DuckDB COPY (read_csv) TO parquet, zstd'
c parquet/read parquet/duckdb_read "same $L" \
    '"$B/colscan" "$D/li.parquet" | "$B/col2csv"' \
    'colscan li.parquet | col2csv: every value back, byte for byte'
c parquet/duckdb_read - "lines $((rows + 1))" \
    'node "$H/scan_duckdb.mjs" wide "$D/li.parquet" true "$T/o"' \
    'DuckDB COPY (read_parquet) TO csv'

# TPC-H: the 22 queries as pipelines and DuckDB's official SQL, each
# timed LONG_RUNS times.
CASE_RUNS=$LONG_RUNS
for q in $QUERIES; do
	nn=$(printf '%02d' "$q")
	c "tpch/q${nn}_csv" "tpch/q${nn}_duckdb_csv" "tpchans csv $nn" \
	    "\"\$H/tpch/q$nn.sh\" \"\$D/csv\"" "Q$nn pipeline from CSV"
	c "tpch/q${nn}_col" "tpch/q${nn}_duckdb_db" "tpchans col $nn" \
	    "\"\$H/tpch/q$nn.sh\" \"\$D/col\"" "Q$nn pipeline from .col"
	c "tpch/q${nn}_duckdb_csv" - : \
	    "node \"\$H/tpch_duckdb.mjs\" csv $nn \"\$D/csv\"" \
	    "Q$nn DuckDB over read_csv views"
	c "tpch/q${nn}_duckdb_db" - : \
	    "node \"\$H/tpch_duckdb.mjs\" db $nn \"\$D/tpch.duckdb\"" \
	    "Q$nn DuckDB over its own tables"
done
CASE_RUNS=

if [ -n "${BENCH_EXTRA:-}" ]; then
	# shellcheck disable=SC1090
	. "$BENCH_EXTRA"
fi
[ $ncase -gt 0 ] || die 2 "no cases selected"

# ---- answers ----
# fresh: an empty scratch directory for the next case.
fresh() { rm -rf "$T"; mkdir -p "$T/spill"; }
# spill_empty ID: the case left nothing in its temporary directory.
spill_empty() {
	[ -z "$(ls -A "$T/spill")" ] ||
	    die 1 "$1: left files in its temporary directory:" \
	    "$(ls -A "$T/spill" | head -n 3)"
}
say "bench: checking $ncase answers"
for f in "$tmp"/cases/*.id; do
	n=${f%.id}
	id=$(cat "$f")
	fresh
	# Timed like any run, so that a case with no runs of its own (0,
	# LONG_RUNS at SF 1) keeps this one; bash, not sh: the end-to-end
	# join reads two process substitutions.
	if ! "$timer" -n 1 -w 0 -o "$tmp/out" -- bash -c "$(cat "$n.cmd")" \
	    >"$n.atime" 2>"$tmp/err"; then
		die 1 "$id: failed: $(head -n 3 "$tmp/err")"
	fi
	OUT=$tmp/out
	[ -e "$T/o" ] && OUT=$T/o
	eval "$(cat "$n.check")" ||
	    die 1 "$id: WRONG ANSWER (check: $(cat "$n.check")); nothing timed"
	spill_empty "$id"
	sha <"$OUT" >"$n.sha"
done
if want tpch; then
	nns=
	for q in $QUERIES; do nns="$nns $(printf '%02d' "$q")"; done
	# shellcheck disable=SC2086
	node harness/tpch_duckdb.mjs check "$D/tpch.duckdb" "$D/csv" \
	    "$tmp/ans" $nns >"$tmp/tpch.check" || {
		grep -v ' ok$' "$tmp/tpch.check" >&2
		die 1 "TPC-H: WRONG ANSWER; nothing timed"
	}
fi
say "bench: answers right"

# ---- 3. times ----
for f in "$tmp"/cases/*.id; do
	n=${f%.id}
	id=$(cat "$f")
	r=$(cat "$n.runs")
	if [ "$r" -eq 0 ]; then
		# The checked answer run is the one timed run.
		sed 's/^{/{"timed":"the answer run",/' "$n.atime" >"$n.time"
		continue
	fi
	fresh
	say "bench: timing $id"
	"$timer" -n "$r" -w "$WARMUPS" -- bash -c "$(cat "$n.cmd")" \
	    >"$n.time" || die 1 "$id: a run failed; nothing recorded"
	spill_empty "$id"
done
rm -rf "$T"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 4. the record ----
json_str()
{
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' |
	    tr '\t\n' '  ')"
}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
gov=$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor \
    2>/dev/null || echo unknown)
flags=$(cat "$BUILD/.flags" 2>/dev/null || echo unknown)
case $flags in
*-fsanitize=*) mode=asan ;;
*-O0*) mode=debug ;;
*-O2*) mode=release ;;
*) mode=unknown ;;
esac
[ "$mode" = release ] || say "bench: warning: $BUILD is a $mode build"
ccbin=${flags%% *}
compiler=$($ccbin --version 2>/dev/null | head -n 1 || echo unknown)
vbuild=$("$bin/csv2col" --version |
    sed -n 's/^build \([^,]*\), \([a-z]*\) mode$/\1 \2/p')
git_sha=${vbuild%% *}
[ -n "$git_sha" ] || git_sha=unknown
tree_head=$(git rev-parse --short=12 HEAD 2>/dev/null || echo nocommit)
# Dirty: the code measured or measuring differs from HEAD (not the
# records or the README).
if [ -n "$(git --no-optional-locks status --porcelain -- libcore tools \
    GNUmakefile harness/*.sh harness/*.mjs harness/*.c harness/tpch \
    harness/tpchgen 2>/dev/null | head -n 1)" ]; then
	git_dirty=true
else
	git_dirty=false
fi
bins=
for f in "$bin"/* "$tpchgen" "$timer"; do
	[ -f "$f" ] || continue
	bins="$bins${bins:+,}
      $(json_str "${f##*/}"): \"$(sha <"$f")\""
done
files=
while read -r fname fsha fbytes; do
	files="$files${files:+,}
      $(json_str "$fname"): {\"sha256\": \"$fsha\", \"bytes\": $fbytes}"
done <"$tmp/filesha"
cases=
for f in "$tmp"/cases/*.id; do
	n=${f%.id}
	cases="$cases${cases:+,}
    {\"id\": $(json_str "$(cat "$f")"),
     \"peer\": $(json_str "$(cat "$n.peer")"),
     \"what\": $(json_str "$(cat "$n.what")"),
     \"command\": $(json_str "$(cat "$n.cmd")"),
     \"check\": $(json_str "$(cat "$n.check")"),
     \"output_sha256\": \"$(cat "$n.sha")\", $(sed 's/^{//' "$n.time")"
done
tmpfs=$(stat -f -c %T "$tmp" 2>/dev/null || echo unknown)
mkdir -p "$RECORDS"
sfx=
[ "$SF" = 0.1 ] || sfx="-sf$SF"
rec="$RECORDS/$(date -u +%Y-%m-%d)-$git_sha$sfx.json"
k=2
while [ -e "$rec" ]; do
	rec="$RECORDS/$(date -u +%Y-%m-%d)-$git_sha$sfx-$k.json"
	k=$((k + 1))
done
cat >"$tmp/record.json" <<EOF
{
  "schema": "colpipe-bench/2",
  "taken_utc": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "machine": {
    "cpu": $(json_str "$cpu"),
    "cores": $(nproc),
    "kernel": $(json_str "$(uname -sr)"),
    "mem_kb": $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo),
    "advisory": {
      "cpu_mhz_at_start": $(json_str "$mhz"),
      "governor": $(json_str "$gov"),
      "loadavg_start": $(json_str "$load_start"),
      "loadavg_end": $(json_str "$load_end"),
      "tmp_fs": $(json_str "$tmpfs")
    }
  },
  "build": {
    "mode": "$mode",
    "compiler": $(json_str "$compiler"),
    "flags": $(json_str "$flags"),
    "git_sha": "$git_sha",
    "tree_head": "$tree_head",
    "git_dirty": $git_dirty,
    "version": $(json_str "$("$bin/csv2col" --version | head -n 1)"),
    "binaries_sha256": {$bins
    }
  },
  "toolchain": {
    "node": $(json_str "$(node --version)"),
    "duckdb": $(json_str "$ddver"),
    "sort": $(json_str "$(sort --version | head -n 1)")
  },
  "data": {
    "name": "tpch-sf$SF",
    "from": $(json_str "$data_from"),
    "sf": $(json_str "$SF"),
    "sha256": "$data_sha",
    "lineitem_rows": $rows,
    "files": {$files
    }
  },
  "method": {
    "runs": $RUNS,
    "warmups": $WARMUPS,
    "long_runs": $LONG_RUNS,
    "long_cases": "tpch: long_runs runs (0: its answer run, timed)",
    "answer_runs": "every case's, first: the warm-up before warmups",
    "families": $(json_str "$CASES"),
    "queries": $(json_str "$(echo $QUERIES)"),
    "budgets": {"MEM": "$MEM", "SMALL": "$SMALL", "SORTMEM": "$SORTMEM"},
    "threads": "DuckDB 2 threads; its memory limit where a case gives one",
    "timer": "harness/timer.c: bash -c COMMAND by posix_spawn, rusage of wait4",
    "output_hash": "sha256 of stdout (or T/o, the file written), answer run",
    "variables": {"B": "the build's bin/", "H": "harness/",
      "D": "the data: csv/, col/, *.parquet, li.tbl, tpch.duckdb",
      "T": "the case's scratch directory; T/spill its temporary directory",
      "LCSV": "D/csv/lineitem.csv", "OCSV": "D/csv/orders.csv",
      "LCOL": "D/col/lineitem.col", "OCOL": "D/col/orders.col",
      "LPQ": "D/dd.parquet", "OPQ": "D/do.parquet",
      "ON": "$ON", "KEYS": "$KEYS"}
  },
  "cases": [$cases
  ]
}
EOF
node harness/bench_report.mjs "$tmp/record.json" >"$tmp/table" ||
    die 1 "bench_report.mjs failed"
mv "$tmp/record.json" "$rec"
cat "$tmp/table"
printf 'record: %s\n' "$rec"
if [ -n "$compare" ]; then
	echo
	node harness/compare.mjs "$compare" "$rec"
fi
