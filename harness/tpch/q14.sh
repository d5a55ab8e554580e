#!/bin/bash
# TPC-H Q14, promotion effect:
#   SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%'
#       THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
#     / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
#   FROM lineitem, part
#   WHERE l_partkey = p_partkey AND l_shipdate >= DATE '1995-09-01'
#     AND l_shipdate < DATE '1995-09-01' + INTERVAL '1' MONTH
. "$(dirname "$0")/lib.sh"
tables lineitem part

part() {
	tbl part |
	colscan -s "p_partkey, p_type"
}

# The two sums by colagg, their quotient by a last colscan.
tbl lineitem |
colscan -w "l_shipdate >= DATE '1995-09-01'
	AND l_shipdate < DATE '1995-09-01' + INTERVAL '1' MONTH" \
	-s "l_partkey, l_extendedprice, l_discount" |
coljoin $MEM --on l_partkey=p_partkey - <(part) |
colagg $MEM "sum(CASE WHEN p_type LIKE 'PROMO%'
		THEN l_extendedprice * (1 - l_discount) ELSE 0 END) AS promo" \
	"sum(l_extendedprice * (1 - l_discount)) AS total" |
colscan -s "100.00 * promo / total AS promo_revenue" |
col2csv
