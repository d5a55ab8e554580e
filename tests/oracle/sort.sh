#!/bin/sh
# sort.sh - colsort against DuckDB's ORDER BY on TPC-H SF0.1 lineitem, as
# TAP.
#
# For each key set, under a small and a large memory budget, the order
# colsort gives is compared with DuckDB's by the row identity
# (l_orderkey, l_linenumber), which every key set ends with so that the
# order is fully determined; separately, the rows colsort writes are the
# input's rows, byte for byte, as a multiset.  Needs node, the DuckDB
# package in tests/oracle (make deps) and the shared TPC-H data; skips
# with the reason otherwise.  MODE=asan keeps one key set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
shared=${COLPIPE_SHARED:-$top/../shared}
li=$shared/data/tpch/sf0.1/lineitem.csv.zst
bin=$BUILD/bin

if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
	echo "1..0 # skip DuckDB oracle not installed: run make deps"
	exit 0
fi
if [ ! -f "$li" ]; then
	echo "1..0 # skip no TPC-H data at $li"
	exit 0
fi
for t in csv2col col2csv colsort; do
	if [ ! -x "$bin/$t" ]; then
		echo "not ok 1 - $bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-sort-oracle.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export LC_ALL=C
n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$work/err" ] && sed 's/^/# /' "$work/err" | head -n 20
	fi
}

zstd -dc "$li" >"$work/li.csv" 2>"$work/err"
ok $? "zstd -dc lineitem"
"$bin/csv2col" "$work/li.csv" >"$work/li.col" 2>"$work/err"
ok $? "csv2col lineitem"
tail -n +2 "$work/li.csv" | sort >"$work/rows.sorted"

# check NAME 'colsort keys' 'DuckDB ORDER BY'
check() {
	name=$1 keys=$2 order=$3
	(cd "$here" && node sort.mjs "$work/li.csv" "$work/duck.csv" \
	    "$order" "l_orderkey, l_linenumber") 2>"$work/err"
	ok $? "$name: DuckDB ORDER BY $order"
	for m in 2M 64M; do
		# shellcheck disable=SC2086
		"$bin/colsort" -m $m $keys "$work/li.col" 2>"$work/err" |
		    "$bin/col2csv" --no-header >"$work/out.csv" 2>>"$work/err"
		ok $? "$name: colsort -m $m $keys"
		cut -d, -f1,4 "$work/out.csv" | cmp -s - "$work/duck.csv"
		ok $? "$name -m $m: the order is DuckDB's"
		sort "$work/out.csv" | cmp -s - "$work/rows.sorted"
		ok $? "$name -m $m: the rows are the input's rows"
	done
}

check "shipdate" "-k l_shipdate -k l_orderkey -k l_linenumber" \
    "l_shipdate, l_orderkey, l_linenumber"
if [ "$MODE" != asan ]; then
	check "returnflag desc, price" \
	    "-k l_returnflag:desc -k l_extendedprice -k l_orderkey -k l_linenumber" \
	    "l_returnflag DESC, l_extendedprice, l_orderkey, l_linenumber"
	check "comment desc" \
	    "-k l_comment:desc -k l_orderkey:desc -k l_linenumber" \
	    "l_comment DESC, l_orderkey DESC, l_linenumber"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
