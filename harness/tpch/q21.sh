#!/bin/bash
# TPC-H Q21, suppliers who kept orders waiting:
#   SELECT s_name, count(*) AS numwait
#   FROM supplier, lineitem l1, orders, nation
#   WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey
#     AND o_orderstatus = 'F' AND l1.l_receiptdate > l1.l_commitdate
#     AND EXISTS (SELECT * FROM lineitem l2
#                 WHERE l2.l_orderkey = l1.l_orderkey
#                   AND l2.l_suppkey <> l1.l_suppkey)
#     AND NOT EXISTS (SELECT * FROM lineitem l3
#                     WHERE l3.l_orderkey = l1.l_orderkey
#                       AND l3.l_suppkey <> l1.l_suppkey
#                       AND l3.l_receiptdate > l3.l_commitdate)
#     AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
#   GROUP BY s_name ORDER BY numwait DESC, s_name LIMIT 100
# The subqueries join on l_orderkey and on l_suppkey <>, which no equi-join
# expresses; an equivalent formulation by orders: l1 is a late item of a
# supplier, so the EXISTS holds when its order has two suppliers or more
# (its least l_suppkey is not its greatest), and the NOT EXISTS when the
# order's late items have one supplier (theirs, the least is the
# greatest).  NULL supplier keys pass neither <> nor the aggregates, so
# the two agree on them too.  One aggregate per order finds both, and the
# orders that qualify are a semi join.  The line items are read twice, so
# their three columns are a file.
. "$(dirname "$0")/lib.sh"
tables lineitem orders supplier nation

tbl lineitem |
colscan -s "l_orderkey, l_suppkey, l_receiptdate > l_commitdate AS late" \
	-o "$TMP/items.col"

finished() {
	tbl orders |
	colscan -w "o_orderstatus = 'F'" -s o_orderkey
}

waiting() {
	colagg $MEM -b l_orderkey \
		"min(l_suppkey) AS lo, max(l_suppkey) AS hi" \
		"min(CASE WHEN late THEN l_suppkey END) AS late_lo" \
		"max(CASE WHEN late THEN l_suppkey END) AS late_hi" \
		--having "lo <> hi AND late_lo = late_hi" "$TMP/items.col" |
	colscan -s "l_orderkey AS w_orderkey" |
	coljoin $MEM --type semi --on w_orderkey=o_orderkey - <(finished)
}

saudi() {
	tbl nation |
	colscan -w "n_name = 'SAUDI ARABIA'" -s n_nationkey
}

supplier() {
	tbl supplier |
	colscan -s "s_suppkey, s_name, s_nationkey" |
	coljoin $MEM --type semi --on s_nationkey=n_nationkey - <(saudi)
}

colscan -w late -s "l_orderkey, l_suppkey" "$TMP/items.col" |
coljoin $MEM --type semi --on l_orderkey=w_orderkey - <(waiting) |
coljoin $MEM --on l_suppkey=s_suppkey - <(supplier) |
colagg $MEM -b s_name "count(*) AS numwait" |
colsort $MEM -k numwait:desc -k s_name --limit 100 |
col2csv
