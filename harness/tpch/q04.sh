#!/bin/bash
# TPC-H Q4, order priority checking:
#   SELECT o_orderpriority, count(*) AS order_count FROM orders
#   WHERE o_orderdate >= DATE '1993-07-01'
#     AND o_orderdate < DATE '1993-07-01' + INTERVAL '3' MONTH
#     AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey
#                 AND l_commitdate < l_receiptdate)
#   GROUP BY o_orderpriority ORDER BY o_orderpriority
. "$(dirname "$0")/lib.sh"
tables lineitem orders

# EXISTS: a semi join with the late line items.
late() {
	tbl lineitem |
	colscan -w "l_commitdate < l_receiptdate" -s l_orderkey
}

# The quarter's orders are far fewer than the late line items: they are
# the side to hold (--build left).
tbl orders |
colscan -w "o_orderdate >= DATE '1993-07-01'
	AND o_orderdate < DATE '1993-07-01' + INTERVAL '3' MONTH" \
	-s "o_orderkey, o_orderpriority" |
coljoin $MEM --build left --type semi --on o_orderkey=l_orderkey - <(late) |
colagg $MEM -b o_orderpriority "count(*) AS order_count" |
colsort $MEM -k o_orderpriority |
col2csv
