#!/bin/bash
# TPC-H Q2, minimum cost supplier:
#   SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address,
#     s_phone, s_comment
#   FROM part, supplier, partsupp, nation, region
#   WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15
#     AND p_type LIKE '%BRASS' AND s_nationkey = n_nationkey
#     AND n_regionkey = r_regionkey AND r_name = 'EUROPE'
#     AND ps_supplycost = (SELECT min(ps_supplycost)
#       FROM partsupp, supplier, nation, region
#       WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey
#         AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
#         AND r_name = 'EUROPE')
#   ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 100
# The correlated minimum is an aggregate by part joined back on the part
# and the cost.
. "$(dirname "$0")/lib.sh"
tables part partsupp supplier nation region

parts() {
	tbl part |
	colscan -w "p_size = 15 AND p_type LIKE '%BRASS'" -s "p_partkey, p_mfgr"
}

europe() {
	tbl region |
	colscan -w "r_name = 'EUROPE'" -s r_regionkey
}

# The suppliers of Europe, with their nation's name.
suppliers() {
	tbl nation |
	coljoin $MEM --type semi --on n_regionkey=r_regionkey - <(europe) |
	colscan -s "n_nationkey, n_name" |
	coljoin $MEM --on n_nationkey=s_nationkey - <(tbl supplier) |
	colscan -s "s_suppkey, s_acctbal, s_name, n_name, s_address, s_phone,
		s_comment"
}

# What Europe's suppliers offer of those parts, read twice below.
tbl partsupp |
colscan -s "ps_partkey, ps_suppkey, ps_supplycost" |
coljoin $MEM --type semi --on ps_partkey=p_partkey - <(parts) |
coljoin $MEM --on ps_suppkey=s_suppkey -o "$TMP/offers.col" - <(suppliers)

cheapest() {
	colagg $MEM -b "ps_partkey AS m_partkey" \
		"min(ps_supplycost) AS m_cost" "$TMP/offers.col"
}

coljoin $MEM --type semi --on ps_partkey=m_partkey,ps_supplycost=m_cost \
	"$TMP/offers.col" <(cheapest) |
coljoin $MEM --on ps_partkey=p_partkey - <(parts) |
colsort $MEM -k s_acctbal:desc -k n_name -k s_name -k p_partkey --limit 100 |
colscan -s "s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone,
	s_comment" |
col2csv
