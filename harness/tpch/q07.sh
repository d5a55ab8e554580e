#!/bin/bash
# TPC-H Q7, volume shipping:
#   SELECT supp_nation, cust_nation, l_year, sum(volume) AS revenue
#   FROM (SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation,
#       extract(year FROM l_shipdate) AS l_year,
#       l_extendedprice * (1 - l_discount) AS volume
#     FROM supplier, lineitem, orders, customer, nation n1, nation n2
#     WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey
#       AND c_custkey = o_custkey AND s_nationkey = n1.n_nationkey
#       AND c_nationkey = n2.n_nationkey
#       AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
#         OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE'))
#       AND l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31')
#     AS shipping
#   GROUP BY supp_nation, cust_nation, l_year
#   ORDER BY supp_nation, cust_nation, l_year
. "$(dirname "$0")/lib.sh"
tables lineitem orders customer supplier nation

# nations AS: the two nations, their name called AS.
nations() {
	tbl nation |
	colscan -w "n_name IN ('FRANCE', 'GERMANY')" \
		-s "n_nationkey, n_name AS $1"
}

suppliers() {
	tbl supplier |
	colscan -s "s_suppkey, s_nationkey" |
	coljoin $MEM --on s_nationkey=n_nationkey - <(nations supp_nation) |
	colscan -s "s_suppkey, supp_nation"
}

customers() {
	tbl customer |
	colscan -s "c_custkey, c_nationkey" |
	coljoin $MEM --on c_nationkey=n_nationkey - <(nations cust_nation) |
	colscan -s "c_custkey, cust_nation"
}

tbl lineitem |
colscan -w "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'" \
	-s "l_orderkey, l_suppkey, l_shipdate, l_extendedprice, l_discount" |
coljoin $MEM --on l_suppkey=s_suppkey - <(suppliers) |
coljoin $MEM --on l_orderkey=o_orderkey - \
	<(tbl orders | colscan -s "o_orderkey, o_custkey") |
coljoin $MEM --on o_custkey=c_custkey - <(customers) |
colagg $MEM -w "(supp_nation = 'FRANCE' AND cust_nation = 'GERMANY')
	OR (supp_nation = 'GERMANY' AND cust_nation = 'FRANCE')" -b "supp_nation, cust_nation, extract(year FROM l_shipdate) AS l_year" \
	"sum(l_extendedprice * (1 - l_discount)) AS revenue" |
colsort $MEM -k supp_nation -k cust_nation -k l_year |
col2csv
