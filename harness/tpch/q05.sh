#!/bin/bash
# TPC-H Q5, local supplier volume:
#   SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
#   FROM customer, orders, lineitem, supplier, nation, region
#   WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
#     AND l_suppkey = s_suppkey AND c_nationkey = s_nationkey
#     AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
#     AND r_name = 'ASIA' AND o_orderdate >= DATE '1994-01-01'
#     AND o_orderdate < DATE '1994-01-01' + INTERVAL '1' YEAR
#   GROUP BY n_name ORDER BY revenue DESC
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer supplier nation region

asia() {
	tbl region |
	colscan -w "r_name = 'ASIA'" -s r_regionkey
}

# The suppliers of Asia, with their nation's name.
suppliers() {
	tbl nation |
	coljoin $MEM --type semi --on n_regionkey=r_regionkey - <(asia) |
	colscan -s "n_nationkey, n_name" |
	coljoin $MEM --on n_nationkey=s_nationkey - \
		<(tbl supplier | colscan -s "s_suppkey, s_nationkey")
}

orders() {
	tbl orders |
	colscan -w "o_orderdate >= DATE '1994-01-01'
		AND o_orderdate < DATE '1994-01-01' + INTERVAL '1' YEAR" \
		-s "o_orderkey, o_custkey" |
	coljoin $MEM --on o_custkey=c_custkey --drop-right-keys - \
		<(tbl customer | colscan -s "c_custkey, c_nationkey")
}

# A line item counts when its supplier is of its customer's nation.
tbl lineitem |
colscan -s "l_orderkey, l_suppkey, l_extendedprice, l_discount" |
coljoin $MEM --on l_orderkey=o_orderkey - <(orders) |
coljoin $MEM --on l_suppkey=s_suppkey,c_nationkey=s_nationkey - \
	<(suppliers) |
colagg $MEM -b n_name "sum(l_extendedprice * (1 - l_discount)) AS revenue" |
colsort $MEM -k revenue:desc |
col2csv
