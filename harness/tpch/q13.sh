#!/bin/bash
# TPC-H Q13, customer distribution:
#   SELECT c_count, count(*) AS custdist
#   FROM (SELECT c_custkey, count(o_orderkey)
#         FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey
#           AND o_comment NOT LIKE '%special%requests%'
#         GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
#   GROUP BY c_count ORDER BY custdist DESC, c_count DESC
. "$(dirname "$0")/lib.sh"
tables orders customer

# The ON condition on orders alone filters the right side before the join.
orders() {
	tbl orders |
	colscan -w "o_comment NOT LIKE '%special%requests%'" \
		-s "o_orderkey, o_custkey"
}

tbl customer |
colscan -s c_custkey |
coljoin $MEM --type left --on c_custkey=o_custkey - <(orders) |
colagg $MEM -b c_custkey "count(o_orderkey) AS c_count" |
colagg $MEM -b c_count "count(*) AS custdist" |
colsort $MEM -k custdist:desc -k c_count:desc |
col2csv
