#!/bin/bash
# TPC-H Q8, national market share:
#   SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END)
#     / sum(volume) AS mkt_share
#   FROM (SELECT extract(year FROM o_orderdate) AS o_year,
#       l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
#     FROM part, supplier, lineitem, orders, customer, nation n1, nation n2,
#       region
#     WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey
#       AND l_orderkey = o_orderkey AND o_custkey = c_custkey
#       AND c_nationkey = n1.n_nationkey AND n1.n_regionkey = r_regionkey
#       AND r_name = 'AMERICA' AND s_nationkey = n2.n_nationkey
#       AND o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
#       AND p_type = 'ECONOMY ANODIZED STEEL') AS all_nations
#   GROUP BY o_year ORDER BY o_year
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer part supplier nation region

region() {
	tbl region |
	colscan -w "r_name = 'AMERICA'" -s r_regionkey
}

# The nations of America (n1).
america() {
	tbl nation |
	coljoin $MEM --type semi --on n_regionkey=r_regionkey - <(region) |
	colscan -s n_nationkey
}

customers() {
	tbl customer |
	colscan -s "c_custkey, c_nationkey" |
	coljoin $MEM --type semi --on c_nationkey=n_nationkey - <(america)
}

orders() {
	tbl orders |
	colscan -w "o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'" \
		-s "o_orderkey, o_custkey, o_orderdate" |
	coljoin $MEM --type semi --on o_custkey=c_custkey - <(customers)
}

parts() {
	tbl part |
	colscan -w "p_type = 'ECONOMY ANODIZED STEEL'" -s p_partkey
}

# Every supplier with its nation's name (n2).
suppliers() {
	tbl supplier |
	colscan -s "s_suppkey, s_nationkey" |
	coljoin $MEM --on s_nationkey=n_nationkey - \
		<(tbl nation | colscan -s "n_nationkey, n_name AS nation") |
	colscan -s "s_suppkey, nation"
}

tbl lineitem |
colscan -s "l_orderkey, l_partkey, l_suppkey, l_extendedprice, l_discount" |
coljoin $MEM --type semi --on l_partkey=p_partkey - <(parts) |
coljoin $MEM --on l_orderkey=o_orderkey - <(orders) |
coljoin $MEM --on l_suppkey=s_suppkey - <(suppliers) |
colagg $MEM -b "extract(year FROM o_orderdate) AS o_year" \
	"sum(CASE WHEN nation = 'BRAZIL'
		THEN l_extendedprice * (1 - l_discount) ELSE 0 END) AS brazil,
	sum(l_extendedprice * (1 - l_discount)) AS volume" |
colscan -s "o_year, brazil / volume AS mkt_share" |
colsort $MEM -k o_year |
col2csv
