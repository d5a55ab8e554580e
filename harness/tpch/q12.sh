#!/bin/bash
# TPC-H Q12, shipping modes and order priority:
#   SELECT l_shipmode,
#     sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
#         THEN 1 ELSE 0 END) AS high_line_count,
#     sum(CASE WHEN o_orderpriority <> '1-URGENT'
#         AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
#   FROM orders, lineitem
#   WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
#     AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
#     AND l_receiptdate >= DATE '1994-01-01'
#     AND l_receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR
#   GROUP BY l_shipmode ORDER BY l_shipmode
. "$(dirname "$0")/lib.sh"
tables lineitem orders

orders() {
	tbl orders |
	colscan -s "o_orderkey, o_orderpriority"
}

tbl lineitem |
colscan -w "l_shipmode IN ('MAIL', 'SHIP')
	AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
	AND l_receiptdate >= DATE '1994-01-01'
	AND l_receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR" \
	-s "l_orderkey, l_shipmode" |
coljoin $MEM --on l_orderkey=o_orderkey - <(orders) |
colagg $MEM -b l_shipmode \
	"sum(CASE WHEN o_orderpriority = '1-URGENT'
		OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END)
		AS high_line_count" \
	"sum(CASE WHEN o_orderpriority <> '1-URGENT'
		AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END)
		AS low_line_count" |
colsort $MEM -k l_shipmode |
col2csv
