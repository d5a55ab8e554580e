#!/bin/bash
# TPC-H Q19, discounted revenue:
#   SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue
#   FROM lineitem, part
#   WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12'
#       AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
#       AND l_quantity >= 1 AND l_quantity <= 1 + 10
#       AND p_size BETWEEN 1 AND 5 AND l_shipmode IN ('AIR', 'AIR REG')
#       AND l_shipinstruct = 'DELIVER IN PERSON')
#     OR (... 'Brand#23', 'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK',
#       10 .. 10 + 10, p_size 1 .. 10 ...)
#     OR (... 'Brand#34', 'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG',
#       20 .. 20 + 10, p_size 1 .. 15 ...)
# The terms common to the three branches filter each table before the
# join; the whole condition is checked after it.
. "$(dirname "$0")/lib.sh"
tables lineitem part

part() {
	tbl part |
	colscan -w "p_brand IN ('Brand#12', 'Brand#23', 'Brand#34')
		AND p_size BETWEEN 1 AND 15" \
		-s "p_partkey, p_brand, p_container, p_size"
}

tbl lineitem |
colscan -w "l_shipmode IN ('AIR', 'AIR REG')
	AND l_shipinstruct = 'DELIVER IN PERSON'
	AND l_quantity BETWEEN 1 AND 30" \
	-s "l_partkey, l_quantity, l_extendedprice, l_discount" |
coljoin $MEM --on l_partkey=p_partkey - <(part) |
colagg $MEM -w "(p_brand = 'Brand#12'
		AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
		AND l_quantity >= 1 AND l_quantity <= 1 + 10
		AND p_size BETWEEN 1 AND 5)
	OR (p_brand = 'Brand#23'
		AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
		AND l_quantity >= 10 AND l_quantity <= 10 + 10
		AND p_size BETWEEN 1 AND 10)
	OR (p_brand = 'Brand#34'
		AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
		AND l_quantity >= 20 AND l_quantity <= 20 + 10
		AND p_size BETWEEN 1 AND 15)" \
	"sum(l_extendedprice * (1 - l_discount)) AS revenue" |
col2csv
