#!/bin/sh
# join.sh - coljoin against DuckDB's joins on TPC-H SF0.1, as TAP.
#
# Each case runs coljoin at a budget that holds the build side and at
# one that forces partitioning to spill files (-m 1M), and compares its
# rows with DuckDB's as multisets: both written as tab-separated text
# (col2csv -f tsv; DuckDB with nothing quoted and NULL as \N), sorted,
# byte for byte.  Cases: lineitem with orders; lineitem with partsupp
# on two keys; customer left join orders; orders right and full join
# customer; semi and anti joins of customer against orders; NOT IN
# (--null-aware) with a NULL key on either side; two joins narrowed by
# -s to a few columns in another order (DuckDB's SELECT of them); and
# each case but those counted with --count against DuckDB's row count
# (-m 1M).  Some orders and customers get a NULL key (orders_null,
# customer_null) for the outer, anti and NOT IN cases.  Needs node, the
# DuckDB package in tests/oracle (make deps) and the shared TPC-H data;
# skips with the reason otherwise.  MODE=asan leaves the lineitem cases
# out.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MODE=${MODE:-release}
BUILD=${BUILD:-build/$MODE}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
shared=${COLPIPE_SHARED:-$top/../shared}
tpch=$shared/data/tpch/sf0.1
bin=$BUILD/bin

if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # skip node not installed (make deps)"
	exit 0
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
	echo "1..0 # skip DuckDB oracle not installed: run make deps"
	exit 0
fi
for t in customer orders lineitem partsupp; do
	if [ ! -f "$tpch/$t.csv.zst" ]; then
		echo "1..0 # skip no TPC-H data at $tpch/$t.csv.zst"
		exit 0
	fi
done
for t in csv2col col2csv coljoin; do
	if [ ! -x "$bin/$t" ]; then
		echo "not ok 1 - $bin/$t is not built"
		echo "1..1"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/colpipe-join-oracle.XXXXXX") || exit 1
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

tables="customer orders partsupp"
[ "$MODE" != asan ] && tables="$tables lineitem"
for t in $tables; do
	zstd -dc "$tpch/$t.csv.zst" >"$work/$t.csv" 2>"$work/err"
	ok $? "zstd -dc $t"
done
# A NULL key in every 1000th order (o_custkey, the second field) and in
# every 500th customer (c_custkey, the first); both fields are plain
# integers, never quoted.
awk -F, -v OFS=, 'NR > 1 && NR % 1000 == 2 { $2 = "" } { print }' \
    "$work/orders.csv" >"$work/orders_null.csv"
awk 'NR > 1 && NR % 500 == 3 { sub(/^[0-9]+/, "") } { print }' \
    "$work/customer.csv" >"$work/customer_null.csv"
for t in $tables orders_null customer_null; do
	"$bin/csv2col" "$work/$t.csv" >"$work/$t.col" 2>"$work/err"
	ok $? "csv2col $t"
done

# The cases: NAME, coljoin's arguments, DuckDB's query.
cases() {
	if [ "$MODE" != asan ]; then
		printf 'li_o\t--on l_orderkey=o_orderkey lineitem orders\tSELECT * FROM lineitem JOIN orders ON l_orderkey = o_orderkey\n'
		printf 'li_ps\t--on l_partkey=ps_partkey,l_suppkey=ps_suppkey lineitem partsupp\tSELECT * FROM lineitem JOIN partsupp ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey\n'
		printf 'li_o_sel\t-s o_orderdate,l_quantity,l_orderkey --on l_orderkey=o_orderkey lineitem orders\tSELECT o_orderdate, l_quantity, l_orderkey FROM lineitem JOIN orders ON l_orderkey = o_orderkey\n'
	fi
	printf 'c_left_o\t--type left --on c_custkey=o_custkey customer orders\tSELECT * FROM customer LEFT JOIN orders ON c_custkey = o_custkey\n'
	printf 'o_right_c\t--type right --on o_custkey=c_custkey orders_null customer\tSELECT * FROM orders_null RIGHT JOIN customer ON o_custkey = c_custkey\n'
	printf 'o_full_c\t--type full --on o_custkey=c_custkey orders_null customer_null\tSELECT * FROM orders_null FULL JOIN customer_null ON o_custkey = c_custkey\n'
	printf 'c_semi_o\t--type semi --on c_custkey=o_custkey customer_null orders\tSELECT * FROM customer_null c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey)\n'
	printf 'c_anti_o\t--type anti --on c_custkey=o_custkey customer_null orders_null\tSELECT * FROM customer_null c WHERE NOT EXISTS (SELECT 1 FROM orders_null o WHERE o.o_custkey = c.c_custkey)\n'
	printf 'c_notin_o\t--type anti --null-aware --on c_custkey=o_custkey customer_null orders\tSELECT * FROM customer_null WHERE c_custkey NOT IN (SELECT o_custkey FROM orders)\n'
	printf 'o_full_c_sel\t--type full -s c_name,o_orderkey --on o_custkey=c_custkey orders_null customer_null\tSELECT c_name, o_orderkey FROM orders_null FULL JOIN customer_null ON o_custkey = c_custkey\n'
	printf 'c_notin_onull\t--type anti --null-aware --on c_custkey=o_custkey customer orders_null\tSELECT * FROM customer WHERE c_custkey NOT IN (SELECT o_custkey FROM orders_null)\n'
}
cases | cut -f1,3 >"$work/spec"
(cd "$here" && node join.mjs "$work" "$work/spec") 2>"$work/err"
ok $? "DuckDB: $(wc -l <"$work/spec") joins"

cases | while IFS='	' read -r name args sql; do
	sort "$work/$name.duck.tsv" >"$work/want"
	rows=$(wc -l <"$work/want")
	# The last two words of args are the inputs.
	set -- $args
	shift $(($# - 2))
	l=$work/$1.col r=$work/$2.col
	opts=$(printf '%s\n' "$args" | awk '{ NF -= 2; print }')
	for m in 256M 1M; do
		# shellcheck disable=SC2086
		{
			"$bin/coljoin" -m $m $opts "$l" "$r" 2>"$work/err"
			echo $? >"$work/status"
		} | "$bin/col2csv" -f tsv --no-header 2>>"$work/err" |
		    sort >"$work/got"
		[ "$(cat "$work/status")" = 0 ] && cmp -s "$work/got" "$work/want"
		ok $? "$name -m $m: coljoin $opts: DuckDB's $rows rows"
	done
	case " $opts " in *" -s "*) continue ;; esac
	# shellcheck disable=SC2086
	got=$("$bin/coljoin" -m 1M --count $opts "$l" "$r" 2>"$work/err")
	[ "$got" = "$rows" ]
	ok $? "$name -m 1M: coljoin --count $opts: DuckDB's $rows"
done >"$work/tap"
cat "$work/tap"
n=$((n + $(grep -c '^\(not \)\{0,1\}ok' "$work/tap")))
failed=$((failed + $(grep -c '^not ok' "$work/tap")))
echo "1..$n"
[ "$failed" -eq 0 ]
