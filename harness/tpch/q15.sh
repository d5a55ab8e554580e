#!/bin/bash
# TPC-H Q15, top supplier:
#   CREATE VIEW revenue0 (supplier_no, total_revenue) AS
#     SELECT l_suppkey, sum(l_extendedprice * (1 - l_discount))
#     FROM lineitem WHERE l_shipdate >= DATE '1996-01-01'
#       AND l_shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH
#     GROUP BY l_suppkey;
#   SELECT s_suppkey, s_name, s_address, s_phone, total_revenue
#   FROM supplier, revenue0
#   WHERE s_suppkey = supplier_no
#     AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
#   ORDER BY s_suppkey
. "$(dirname "$0")/lib.sh"
tables lineitem supplier

# The view is read twice, so it is a file.
tbl lineitem |
colagg $MEM -w "l_shipdate >= DATE '1996-01-01'
	AND l_shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH" -b "l_suppkey AS supplier_no" \
	"sum(l_extendedprice * (1 - l_discount)) AS total_revenue" \
	-o "$TMP/revenue0.col"

# The scalar subquery: the largest revenue, as a literal for the filter
# (NULL when there is none: max() of no rows is NULL, an empty field).
max=$(colagg "max(total_revenue)" "$TMP/revenue0.col" |
	col2csv --no-header)

supplier() {
	tbl supplier |
	colscan -s "s_suppkey, s_name, s_address, s_phone"
}

colscan -w "total_revenue = ${max:-NULL}" "$TMP/revenue0.col" |
coljoin $MEM --on s_suppkey=supplier_no <(supplier) - |
colsort $MEM -k s_suppkey |
colscan -s "s_suppkey, s_name, s_address, s_phone, total_revenue" |
col2csv
