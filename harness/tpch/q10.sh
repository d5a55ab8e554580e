#!/bin/bash
# TPC-H Q10, returned item reporting:
#   SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount))
#     AS revenue, c_acctbal, n_name, c_address, c_phone, c_comment
#   FROM customer, orders, lineitem, nation
#   WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
#     AND o_orderdate >= DATE '1993-10-01'
#     AND o_orderdate < DATE '1993-10-01' + INTERVAL '3' MONTH
#     AND l_returnflag = 'R' AND c_nationkey = n_nationkey
#   GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address,
#     c_comment
#   ORDER BY revenue DESC LIMIT 20
# The other keys depend on c_custkey: grouped by it alone, then joined.
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer nation

orders() {
	tbl orders |
	colscan -w "o_orderdate >= DATE '1993-10-01'
		AND o_orderdate < DATE '1993-10-01' + INTERVAL '3' MONTH" \
		-s "o_orderkey, o_custkey"
}

tbl lineitem |
colscan -w "l_returnflag = 'R'" -s "l_orderkey, l_extendedprice, l_discount" |
coljoin $MEM --on l_orderkey=o_orderkey - <(orders) |
colagg $MEM -b o_custkey "sum(l_extendedprice * (1 - l_discount)) AS revenue" |
coljoin $MEM --on o_custkey=c_custkey - <(tbl customer) |
coljoin $MEM --on c_nationkey=n_nationkey - \
	<(tbl nation | colscan -s "n_nationkey, n_name") |
colsort $MEM -k revenue:desc --limit 20 |
colscan -s "c_custkey, c_name, revenue, c_acctbal, n_name, c_address, c_phone,
	c_comment" |
col2csv
