#!/bin/bash
# TPC-H Q16, parts/supplier relationship:
#   SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt
#   FROM partsupp, part
#   WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45'
#     AND p_type NOT LIKE 'MEDIUM POLISHED%'
#     AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
#     AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier
#                            WHERE s_comment LIKE '%Customer%Complaints%')
#   GROUP BY p_brand, p_type, p_size
#   ORDER BY supplier_cnt DESC, p_brand, p_type, p_size
# NOT IN is a null-aware anti join.  count(DISTINCT) is two levels of
# GROUP BY, as a planner makes it: one row per group and supplier, then
# those rows counted per group.
. "$(dirname "$0")/lib.sh"
tables part partsupp supplier

complaints() {
	tbl supplier |
	colscan -w "s_comment LIKE '%Customer%Complaints%'" -s s_suppkey
}

part() {
	tbl part |
	colscan -w "p_brand <> 'Brand#45' AND p_type NOT LIKE 'MEDIUM POLISHED%'
		AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)" \
		-s "p_partkey, p_brand, p_type, p_size"
}

tbl partsupp |
colscan -s "ps_partkey, ps_suppkey" |
coljoin $MEM --type anti --null-aware --on ps_suppkey=s_suppkey \
	- <(complaints) |
coljoin $MEM --on ps_partkey=p_partkey - <(part) |
colagg $MEM -b p_brand,p_type,p_size,ps_suppkey "count(*) AS n" |
colagg $MEM -b p_brand,p_type,p_size "count(*) AS supplier_cnt" |
colsort $MEM -k supplier_cnt:desc -k p_brand -k p_type -k p_size |
col2csv
