#!/bin/bash
# TPC-H Q20, potential part promotion:
#   SELECT s_name, s_address FROM supplier, nation
#   WHERE s_suppkey IN (
#       SELECT ps_suppkey FROM partsupp
#       WHERE ps_partkey IN (SELECT p_partkey FROM part
#                            WHERE p_name LIKE 'forest%')
#         AND ps_availqty > (SELECT 0.5 * sum(l_quantity) FROM lineitem
#                            WHERE l_partkey = ps_partkey
#                              AND l_suppkey = ps_suppkey
#                              AND l_shipdate >= DATE '1994-01-01'
#                              AND l_shipdate < DATE '1994-01-01'
#                                + INTERVAL '1' YEAR))
#     AND s_nationkey = n_nationkey AND n_name = 'CANADA'
#   ORDER BY s_name
# Each IN is a semi join.  The correlated sum is an aggregate per part and
# supplier joined back by an inner join: a pair with no line item has a
# NULL sum, which no comparison passes, so dropping it is the same.  The
# forest parts are read twice, so they are a file.
. "$(dirname "$0")/lib.sh"
tables lineitem part partsupp supplier nation

tbl part |
colscan -w "p_name LIKE 'forest%'" -s p_partkey -o "$TMP/forest.col"

# Half the quantity shipped in 1994 of each forest part by each supplier.
shipped() {
	tbl lineitem |
	colscan -w "l_shipdate >= DATE '1994-01-01'
		AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR" \
		-s "l_partkey, l_suppkey, l_quantity" |
	coljoin $MEM --type semi --on l_partkey=p_partkey - "$TMP/forest.col" |
	colagg $MEM -b l_partkey,l_suppkey "sum(l_quantity) AS qty" |
	colscan -s "l_partkey, l_suppkey, 0.5 * qty AS half_qty"
}

excess() {
	tbl partsupp |
	colscan -s "ps_partkey, ps_suppkey, ps_availqty" |
	coljoin $MEM --type semi --on ps_partkey=p_partkey - "$TMP/forest.col" |
	coljoin $MEM --on ps_partkey=l_partkey,ps_suppkey=l_suppkey \
		- <(shipped) |
	colscan -w "ps_availqty > half_qty" -s ps_suppkey
}

canada() {
	tbl nation |
	colscan -w "n_name = 'CANADA'" -s n_nationkey
}

tbl supplier |
colscan -s "s_suppkey, s_name, s_address, s_nationkey" |
coljoin $MEM --type semi --on s_nationkey=n_nationkey - <(canada) |
coljoin $MEM --type semi --on s_suppkey=ps_suppkey - <(excess) |
colsort $MEM -k s_name |
colscan -s "s_name, s_address" |
col2csv
