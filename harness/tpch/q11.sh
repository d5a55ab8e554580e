#!/bin/bash
# TPC-H Q11, important stock identification:
#   SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value
#   FROM partsupp, supplier, nation
#   WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey
#     AND n_name = 'GERMANY'
#   GROUP BY ps_partkey
#   HAVING sum(ps_supplycost * ps_availqty) > (
#     SELECT sum(ps_supplycost * ps_availqty) * 0.0001
#     FROM partsupp, supplier, nation
#     WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey
#       AND n_name = 'GERMANY')
#   ORDER BY value DESC
# The scalar subquery is a pipeline of its own whose one value becomes a
# literal of the HAVING condition.
. "$(dirname "$0")/lib.sh"
tables partsupp supplier nation

suppliers() {
	tbl supplier |
	colscan -s "s_suppkey, s_nationkey" |
	coljoin $MEM --type semi --on s_nationkey=n_nationkey - \
		<(tbl nation | colscan -w "n_name = 'GERMANY'" -s n_nationkey)
}

# Germany's stock, read twice below.
tbl partsupp |
colscan -s "ps_partkey, ps_suppkey, ps_supplycost, ps_availqty" |
coljoin $MEM --type semi --on ps_suppkey=s_suppkey -o "$TMP/stock.col" - \
	<(suppliers)

threshold=$(
	colagg $MEM "sum(ps_supplycost * ps_availqty) AS total" "$TMP/stock.col" |
	colscan -s "total * 0.0001 AS threshold" |
	col2csv --no-header
)

colagg $MEM -b ps_partkey "sum(ps_supplycost * ps_availqty) AS value" \
	--having "value > $threshold" "$TMP/stock.col" |
colsort $MEM -k value:desc |
col2csv
