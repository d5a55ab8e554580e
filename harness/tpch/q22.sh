#!/bin/bash
# TPC-H Q22, global sales opportunity:
#   SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal
#   FROM (SELECT substring(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal
#         FROM customer
#         WHERE substring(c_phone FROM 1 FOR 2) IN
#             ('13', '31', '23', '29', '30', '18', '17')
#           AND c_acctbal > (SELECT avg(c_acctbal) FROM customer
#                            WHERE c_acctbal > 0.00
#                              AND substring(c_phone FROM 1 FOR 2) IN
#                                ('13', '31', '23', '29', '30', '18', '17'))
#           AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey))
#     AS custsale
#   GROUP BY cntrycode ORDER BY cntrycode
# The scalar subquery is a pipeline of its own whose one value is passed
# to the filter as a float64 literal (NULL when there is none); NOT EXISTS
# is an anti join.  The customers of those codes are read twice, so they
# are a file.
. "$(dirname "$0")/lib.sh"
tables orders customer

codes="('13', '31', '23', '29', '30', '18', '17')"

tbl customer |
colscan -w "substring(c_phone FROM 1 FOR 2) IN $codes" \
	-s "c_custkey, substring(c_phone FROM 1 FOR 2) AS cntrycode,
		c_acctbal" \
	-o "$TMP/customer.col"

avg=$(colagg -w "c_acctbal > 0.00" "avg(c_acctbal)" "$TMP/customer.col" |
	col2csv --no-header)

orders() {
	tbl orders |
	colscan -s o_custkey
}

# The chosen customers are far fewer than the orders: they are the side
# to hold (--build left).
colscan -w "c_acctbal > ${avg:-NULL}::float64" "$TMP/customer.col" |
coljoin $MEM --build left --type anti --on c_custkey=o_custkey - <(orders) |
colagg $MEM -b cntrycode "count(*) AS numcust, sum(c_acctbal) AS totacctbal" |
colsort $MEM -k cntrycode |
col2csv
