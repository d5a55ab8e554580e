#!/bin/bash
# TPC-H Q18, large volume customer:
#   SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice,
#     sum(l_quantity)
#   FROM customer, orders, lineitem
#   WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey
#                        HAVING sum(l_quantity) > 300)
#     AND c_custkey = o_custkey AND o_orderkey = l_orderkey
#   GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
#   ORDER BY o_totalprice DESC, o_orderdate LIMIT 100
# IN is a semi join.  The line items are read twice, so their two columns
# are a file; l_quantity is TPC-H's decimal(15,2), so its sum is a decimal
# as the official types have it.
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer

tbl lineitem |
colscan -s "l_orderkey, l_quantity::decimal(15,2) AS l_quantity" \
	-o "$TMP/items.col"

big() {
	colagg $MEM -b l_orderkey "sum(l_quantity) AS qty" \
		--having "qty > 300" "$TMP/items.col"
}

customer() {
	tbl customer |
	colscan -s "c_custkey, c_name"
}

orders() {
	tbl orders |
	colscan -s "o_orderkey, o_custkey, o_orderdate, o_totalprice" |
	coljoin $MEM --type semi --on o_orderkey=l_orderkey - <(big) |
	coljoin $MEM --on o_custkey=c_custkey - <(customer)
}

coljoin $MEM --on l_orderkey=o_orderkey "$TMP/items.col" <(orders) |
colagg $MEM -b c_name,c_custkey,o_orderkey,o_orderdate,o_totalprice \
	"sum(l_quantity)" |
colsort $MEM -k o_totalprice:desc -k o_orderdate --limit 100 |
col2csv
