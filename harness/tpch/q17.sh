#!/bin/bash
# TPC-H Q17, small-quantity-order revenue:
#   SELECT sum(l_extendedprice) / 7.0 AS avg_yearly FROM lineitem, part
#   WHERE p_partkey = l_partkey AND p_brand = 'Brand#23'
#     AND p_container = 'MED BOX'
#     AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem
#                       WHERE l_partkey = p_partkey)
# The correlated subquery is an aggregate per part joined back: the line
# items of the chosen parts are read twice, so they are a file.
. "$(dirname "$0")/lib.sh"
tables lineitem part

part() {
	tbl part |
	colscan -w "p_brand = 'Brand#23' AND p_container = 'MED BOX'" \
		-s p_partkey
}

tbl lineitem |
colscan -s "l_partkey, l_quantity, l_extendedprice" |
coljoin $MEM --type semi --on l_partkey=p_partkey - <(part) \
	-o "$TMP/items.col"

limit() {
	colagg $MEM -b "l_partkey AS p_partkey" "avg(l_quantity) AS avg_qty" \
		"$TMP/items.col" |
	colscan -s "p_partkey, 0.2 * avg_qty AS qty_limit"
}

coljoin $MEM --on l_partkey=p_partkey "$TMP/items.col" <(limit) |
colscan -w "l_quantity < qty_limit" |
colagg $MEM "sum(l_extendedprice) AS total" |
colscan -s "total / 7.0 AS avg_yearly" |
col2csv
