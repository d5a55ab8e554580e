#!/bin/bash
# TPC-H Q9, product type profit measure:
#   SELECT nation, o_year, sum(amount) AS sum_profit
#   FROM (SELECT n_name AS nation, extract(year FROM o_orderdate) AS o_year,
#       l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity
#         AS amount
#     FROM part, supplier, lineitem, partsupp, orders, nation
#     WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey
#       AND ps_partkey = l_partkey AND p_partkey = l_partkey
#       AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
#       AND p_name LIKE '%green%') AS profit
#   GROUP BY nation, o_year ORDER BY nation, o_year DESC
. "$(dirname "$0")/lib.sh"
tables lineitem orders part partsupp supplier nation

green() {
	tbl part |
	colscan -w "p_name LIKE '%green%'" -s p_partkey
}

offers() {
	tbl partsupp |
	colscan -s "ps_partkey, ps_suppkey, ps_supplycost" |
	coljoin $MEM --type semi --on ps_partkey=p_partkey - <(green)
}

suppliers() {
	tbl supplier |
	colscan -s "s_suppkey, s_nationkey" |
	coljoin $MEM --on s_nationkey=n_nationkey - \
		<(tbl nation | colscan -s "n_nationkey, n_name AS nation") |
	colscan -s "s_suppkey, nation"
}

tbl lineitem |
colscan -s "l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice,
	l_discount" |
coljoin $MEM --type semi --on l_partkey=p_partkey - <(green) |
coljoin $MEM --on l_partkey=ps_partkey,l_suppkey=ps_suppkey - <(offers) |
coljoin $MEM --on l_suppkey=s_suppkey - <(suppliers) |
coljoin $MEM --on l_orderkey=o_orderkey - \
	<(tbl orders | colscan -s "o_orderkey, o_orderdate") |
colagg $MEM -b "nation, extract(year FROM o_orderdate) AS o_year" \
	"sum(l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity)
		AS sum_profit" |
colsort $MEM -k nation -k o_year:desc |
col2csv
