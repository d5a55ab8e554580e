#!/bin/bash
# TPC-H Q3, shipping priority:
#   SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue,
#     o_orderdate, o_shippriority
#   FROM customer, orders, lineitem
#   WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey
#     AND l_orderkey = o_orderkey AND o_orderdate < DATE '1995-03-15'
#     AND l_shipdate > DATE '1995-03-15'
#   GROUP BY l_orderkey, o_orderdate, o_shippriority
#   ORDER BY revenue DESC, o_orderdate LIMIT 10
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer

building() {
	tbl customer |
	colscan -w "c_mktsegment = 'BUILDING'" -s c_custkey
}

# Orders before the date, of those customers.
orders() {
	tbl orders |
	colscan -w "o_orderdate < DATE '1995-03-15'" \
		-s "o_orderkey, o_custkey, o_orderdate, o_shippriority" |
	coljoin $MEM --type semi --on o_custkey=c_custkey - <(building)
}

tbl lineitem |
colscan -w "l_shipdate > DATE '1995-03-15'" \
	-s "l_orderkey, l_extendedprice, l_discount" |
coljoin $MEM --on l_orderkey=o_orderkey - <(orders) |
colagg $MEM -b l_orderkey,o_orderdate,o_shippriority \
	"sum(l_extendedprice * (1 - l_discount)) AS revenue" |
colsort $MEM -k revenue:desc -k o_orderdate --limit 10 |
colscan -s "l_orderkey, revenue, o_orderdate, o_shippriority" |
col2csv
