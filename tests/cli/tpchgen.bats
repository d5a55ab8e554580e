#!/usr/bin/env bats
# tpchgen.bats - the TPC-H generator (harness/tpchgen) at SF 0.01: every
# table's cardinality, every foreign key resolving, the specification's
# value ranges and date rules, determinism for a seed (and independence
# from the thread count and from which tables are asked for), --format
# col equal to csv2col of the CSV, and the command line's failures.
#
# The checks read TSV made by csv2col | col2csv from the CSV files (no
# value of these tables holds a tab), joined in awk.

load helpers

TG=$BIN/../harness/bin/tpchgen
# Messages name the program as it was called: by name, from PATH.
PATH=$BIN/../harness/bin:$PATH
TABLES="region nation supplier customer part partsupp orders lineitem"

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
	"$TG" -s 0.01 -o csv || return 1
	"$TG" -s 0.01 -o col --format col || return 1
	local t
	for t in $TABLES; do
		"$BIN/csv2col" "csv/$t.csv" | "$BIN/col2csv" -f tsv --no-header \
		    >"$t.tsv" || return 1
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	[ -x "$TG" ] || fail "tpchgen not built: $TG is missing"
	D=$BATS_FILE_TMPDIR
}

# awk_check NAME PROGRAM FILE...: runs the awk program (tab-separated)
# and fails with its output when it prints anything.
awk_check() {
	local name=$1 prog=$2
	shift 2
	run awk -F'\t' "$prog" "$@"
	[ "$status" -eq 0 ] || fail "$name: awk status $status: $output"
	[ -z "$output" ] || fail "$name: ${output:0:2000}"
}

# A day number (differences are days) from YYYY-MM-DD.
DAYS='function days(s,  y, m, d) {
	y = substr(s, 1, 4) + 0; m = substr(s, 6, 2) + 0; d = substr(s, 9, 2) + 0
	if (m <= 2) { y--; m += 12 }
	return 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + \
	    int((153 * (m - 3) + 2) / 5) + d
}'

@test "every table is written, with the header of the reference files" {
	local t
	for t in $TABLES; do
		[ -f "$D/csv/$t.csv" ] || fail "no csv/$t.csv"
		[ -f "$D/col/$t.col" ] || fail "no col/$t.col"
	done
	[ "$(ls -A "$D/csv" | wc -l)" -eq 8 ] || fail "csv/ holds: $(ls -A "$D/csv")"
	[ "$(head -n1 "$D/csv/lineitem.csv")" = "l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,l_comment" ]
	[ "$(head -n1 "$D/csv/orders.csv")" = "o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,o_orderpriority,o_clerk,o_shippriority,o_comment" ]
	[ "$(head -n1 "$D/csv/partsupp.csv")" = "ps_partkey,ps_suppkey,ps_availqty,ps_supplycost,ps_comment" ]
	[ "$(head -n1 "$D/csv/customer.csv")" = "c_custkey,c_name,c_address,c_nationkey,c_phone,c_acctbal,c_mktsegment,c_comment" ]
	[ "$(head -n1 "$D/csv/supplier.csv")" = "s_suppkey,s_name,s_address,s_nationkey,s_phone,s_acctbal,s_comment" ]
	[ "$(head -n1 "$D/csv/part.csv")" = "p_partkey,p_name,p_mfgr,p_brand,p_type,p_size,p_container,p_retailprice,p_comment" ]
	[ "$(head -n1 "$D/csv/nation.csv")" = "n_nationkey,n_name,n_regionkey,n_comment" ]
	[ "$(head -n1 "$D/csv/region.csv")" = "r_regionkey,r_name,r_comment" ]
}

@test "the column types are those csv2col infers from the reference files" {
	local ref=$TOP/../shared/data/tpch/sf0.1
	[ -d "$ref" ] || skip "no reference data at $ref"
	local t
	for t in $TABLES; do
		zstd -dc "$ref/$t.csv.zst" | head -n 3000 | "$BIN/csv2col" |
		    "$BIN/colscan" --schema >want
		"$BIN/colscan" --schema "$D/col/$t.col" >got
		diff want got || fail "$t: the schemas differ"
	done
}

@test "cardinalities at SF 0.01" {
	local t n want
	for t in region:5 nation:25 supplier:100 customer:1500 part:2000 \
	    partsupp:8000 orders:15000; do
		n=$(wc -l <"$D/${t%%:*}.tsv")
		want=${t#*:}
		[ "$n" -eq "$want" ] || fail "${t%%:*}: $n rows, want $want"
	done
	# One to seven lines an order, four on average.
	n=$(wc -l <"$D/lineitem.tsv")
	[ "$n" -gt 57000 ] && [ "$n" -lt 63000 ] || fail "lineitem: $n rows"
}

@test "keys: dense, unique, order keys sparse as the specification's" {
	awk_check dense '
		FNR == 1 { f++ }
		$1 != FNR - (f <= 2 ? 1 : 0) { print FILENAME ": key " $1 " at row " FNR; exit }
	' "$D/region.tsv" "$D/nation.tsv" "$D/supplier.tsv" "$D/customer.tsv" \
	    "$D/part.tsv"
	# The first 8 keys of every 32, in order.
	awk_check orderkey '
		{ want = int((NR - 1) / 8) * 32 + (NR - 1) % 8 + 1 }
		$1 != want { print "row " NR ": o_orderkey " $1 ", want " want; exit }
	' "$D/orders.tsv"
	awk_check partsupp-unique '
		seen[$1 "," $2]++ { print "duplicate partsupp " $1 "," $2; exit }
		{ n[$1]++ }
		END { for (p in n) if (n[p] != 4) { print "part " p ": " n[p] " suppliers"; exit } }
	' "$D/partsupp.tsv"
	awk_check linenumber '
		$1 != prev { if ($4 != 1) { print "order " $1 " starts at line " $4; exit } }
		$1 == prev && $4 != last + 1 { print "order " $1 ": line " $4 " after " last; exit }
		$4 > 7 { print "order " $1 ": line " $4; exit }
		{ prev = $1; last = $4 }
	' "$D/lineitem.tsv"
}

@test "every foreign key resolves" {
	awk_check nation-region '
		FILENAME ~ /region/ { r[$1] = 1; next }
		!($3 in r) { print "n_regionkey " $3 }
	' "$D/region.tsv" "$D/nation.tsv"
	awk_check supplier-customer-nation '
		FILENAME ~ /nation/ { n[$1] = 1; next }
		!($4 in n) { print FILENAME ": nationkey " $4 }
	' "$D/nation.tsv" "$D/supplier.tsv" "$D/customer.tsv"
	awk_check partsupp '
		FILENAME ~ /part.tsv$/ { p[$1] = 1; next }
		FILENAME ~ /supplier/ { s[$1] = 1; next }
		!($1 in p) { print "ps_partkey " $1 }
		!($2 in s) { print "ps_suppkey " $2 }
	' "$D/part.tsv" "$D/supplier.tsv" "$D/partsupp.tsv"
	awk_check orders-customer '
		FILENAME ~ /customer/ { c[$1] = 1; next }
		!($2 in c) { print "o_custkey " $2 }
		$2 % 3 == 0 { print "o_custkey " $2 " is a multiple of 3" }
	' "$D/customer.tsv" "$D/orders.tsv"
	awk_check lineitem '
		FILENAME ~ /orders/ { o[$1] = 1; next }
		FILENAME ~ /partsupp/ { ps[$1 "," $2] = 1; next }
		!($1 in o) { print "l_orderkey " $1 }
		!(($2 "," $3) in ps) { print "(l_partkey, l_suppkey) " $2 "," $3 }
		{ has[$1] = 1 }
		END { for (k in o) if (!(k in has)) print "order " k " has no lines" }
	' "$D/orders.tsv" "$D/partsupp.tsv" "$D/lineitem.tsv"
}

@test "lineitem: value ranges and the date rules" {
	awk_check lineitem-values "$DAYS"'
		FILENAME ~ /part.tsv$/ { price[$1] = $8; next }
		FILENAME ~ /orders/ { od[$1] = $5; next }
		$5 < 1 || $5 > 50 || $5 != int($5) { print "l_quantity " $5 }
		$7 !~ /^0\.(0[0-9]|10)$/ { print "l_discount " $7 }
		$8 !~ /^0\.0[0-8]$/ { print "l_tax " $8 }
		sprintf("%.2f", $5 * price[$2]) != $6 { print "l_extendedprice " $6 " of " $5 " x " price[$2] }
		{
			o = days(od[$1]); s = days($11); c = days($12); r = days($13)
			cur = days("1995-06-17")
		}
		s - o < 1 || s - o > 121 { print "l_shipdate " $11 " for o_orderdate " od[$1] }
		c - o < 30 || c - o > 90 { print "l_commitdate " $12 " for o_orderdate " od[$1] }
		r - s < 1 || r - s > 30 { print "l_receiptdate " $13 " for l_shipdate " $11 }
		$10 != (s > cur ? "O" : "F") { print "l_linestatus " $10 " for l_shipdate " $11 }
		r > cur && $9 != "N" { print "l_returnflag " $9 " for l_receiptdate " $13 }
		r <= cur && $9 != "R" && $9 != "A" { print "l_returnflag " $9 " for l_receiptdate " $13 }
		$14 !~ /^(DELIVER IN PERSON|COLLECT COD|NONE|TAKE BACK RETURN)$/ { print "l_shipinstruct " $14 }
		$15 !~ /^(REG AIR|AIR|RAIL|SHIP|TRUCK|MAIL|FOB)$/ { print "l_shipmode " $15 }
		length($16) < 10 || length($16) > 43 { print "l_comment length " length($16) }
	' "$D/part.tsv" "$D/orders.tsv" "$D/lineitem.tsv"
	# Each flag and status occurs.
	for v in A R N; do
		cut -f9 "$D/lineitem.tsv" | grep -qx "$v" || fail "no l_returnflag $v"
	done
}

@test "orders: value ranges, status and total price from the lines" {
	awk_check orders-values '
		FILENAME ~ /lineitem/ {
			n[$1]++; f[$1] += $10 == "F"
			t[$1] += $6 * (1 + $8) * (1 - $7)
			next
		}
		$5 < "1992-01-01" || $5 > "1998-08-02" { print "o_orderdate " $5 }
		$3 != (f[$1] == n[$1] ? "F" : f[$1] == 0 ? "O" : "P") { print "o_orderstatus " $3 " of order " $1 }
		{ d = $4 - t[$1]; if (d < 0) d = -d }
		d > 0.005 * n[$1] + 1e-6 { print "o_totalprice " $4 " of order " $1 ", lines give " t[$1] }
		$6 !~ /^(1-URGENT|2-HIGH|3-MEDIUM|4-NOT SPECIFIED|5-LOW)$/ { print "o_orderpriority " $6 }
		$7 !~ /^Clerk#0000000[0-9][0-9]$/ || $7 == "Clerk#000000000" || substr($7, 7) + 0 > 10 { print "o_clerk " $7 }
		$8 != 0 { print "o_shippriority " $8 }
		length($9) < 19 || length($9) > 78 { print "o_comment length " length($9) }
	' "$D/lineitem.tsv" "$D/orders.tsv"
	for v in F O P; do
		cut -f3 "$D/orders.tsv" | grep -qx "$v" || fail "no o_orderstatus $v"
	done
}

@test "part, partsupp, supplier, customer, nation: value ranges" {
	awk_check part '
		$2 !~ /^[a-z]+ [a-z]+ [a-z]+ [a-z]+ [a-z]+$/ { print "p_name " $2 }
		{ m = substr($3, 14) }
		$3 !~ /^Manufacturer#[1-5]$/ { print "p_mfgr " $3 }
		$4 !~ /^Brand#[1-5][1-5]$/ || substr($4, 7, 1) != m { print "p_brand " $4 " of " $3 }
		$5 !~ /^(STANDARD|SMALL|MEDIUM|LARGE|ECONOMY|PROMO) (ANODIZED|BURNISHED|PLATED|POLISHED|BRUSHED) (TIN|NICKEL|BRASS|STEEL|COPPER)$/ { print "p_type " $5 }
		$6 < 1 || $6 > 50 { print "p_size " $6 }
		$7 !~ /^(SM|LG|MED|JUMBO|WRAP) (CASE|BOX|BAG|JAR|PKG|PACK|CAN|DRUM)$/ { print "p_container " $7 }
		sprintf("%.2f", (90000 + int($1 / 10) % 20001 + 100 * ($1 % 1000)) / 100) != $8 { print "p_retailprice " $8 " of part " $1 }
		length($9) < 5 || length($9) > 22 { print "p_comment length " length($9) }
	' "$D/part.tsv"
	awk_check partsupp '
		$3 < 1 || $3 > 9999 { print "ps_availqty " $3 }
		$4 < 1 || $4 > 1000 { print "ps_supplycost " $4 }
		length($5) < 49 || length($5) > 198 { print "ps_comment length " length($5) }
	' "$D/partsupp.tsv"
	awk_check supplier-customer '
		{ sub(/.tsv$/, "", FILENAME) }
		FILENAME ~ /supplier/ && $2 != sprintf("Supplier#%09d", $1) { print "s_name " $2 }
		FILENAME ~ /customer/ && $2 != sprintf("Customer#%09d", $1) { print "c_name " $2 }
		length($3) < 10 || length($3) > 40 || $3 !~ /^[0-9a-zA-Z, ]+$/ { print "address " $3 }
		$5 !~ /^[1-3][0-9]-[1-9][0-9][0-9]-[1-9][0-9][0-9]-[1-9][0-9][0-9][0-9]$/ || substr($5, 1, 2) != $4 + 10 { print "phone " $5 " of nation " $4 }
		$6 < -999.99 || $6 > 9999.99 { print "acctbal " $6 }
		FILENAME ~ /customer/ && $7 !~ /^(AUTOMOBILE|BUILDING|FURNITURE|MACHINERY|HOUSEHOLD)$/ { print "c_mktsegment " $7 }
		FILENAME ~ /customer/ && (length($8) < 29 || length($8) > 116) { print "c_comment length " length($8) }
		FILENAME ~ /supplier/ && (length($7) < 25 || length($7) > 100) { print "s_comment length " length($7) }
	' "$D/supplier.tsv" "$D/customer.tsv"
	# The specification's nations and regions.
	[ "$(cut -f2,3 "$D/nation.tsv" | sed -n '1p;7p;21p;25p' | tr '\t\n' ':,')" = \
	    "ALGERIA:0,FRANCE:3,SAUDI ARABIA:4,UNITED STATES:1," ]
	[ "$(cut -f2 "$D/region.tsv" | tr '\n' ,)" = "AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST," ]
}

@test "CSV: decimals with two places, dates YYYY-MM-DD, quoted commas" {
	run awk -F, 'NR == 2 { print $6, $7, $8, $11; exit }' "$D/csv/lineitem.csv"
	[[ $output =~ ^[0-9]+\.[0-9][0-9]\ 0\.[01][0-9]\ 0\.0[0-8]\ 199[2-8]-[01][0-9]-[0-3][0-9]$ ]] ||
	    fail "lineitem row 1: $output"
	grep -q '^[0-9]*,Customer#[0-9]*,"[^"]*,[^"]*",' "$D/csv/customer.csv" ||
	    fail "no c_address quoted for its comma"
	# Every row parses into the header's count of fields.
	"$BIN/csv2col" "$D/csv/lineitem.csv" >/dev/null
}

@test "--format col: the same table as csv2col of the CSV" {
	local t
	for t in $TABLES; do
		"$BIN/col2csv" "$D/col/$t.col" >got.csv
		"$BIN/csv2col" "$D/csv/$t.csv" | "$BIN/col2csv" >want.csv
		cmp want.csv got.csv || fail "$t: col and CSV differ"
		cmp "$D/csv/$t.csv" got.csv || fail "$t: col2csv of col is not the CSV"
	done
}

@test "deterministic: same seed same bytes; other threads, other tables, same bytes" {
	"$TG" -s 0.01 -o again -j 1
	"$TG" -s 0.01 -o three -j 3
	"$TG" -s 0.01 -o one -T lineitem,part
	"$TG" -s 0.01 -o - -T orders >orders.csv
	local t
	for t in $TABLES; do
		cmp "$D/csv/$t.csv" "again/$t.csv" || fail "$t: -j 1 differs"
		cmp "$D/csv/$t.csv" "three/$t.csv" || fail "$t: -j 3 differs"
	done
	cmp "$D/csv/lineitem.csv" one/lineitem.csv || fail "lineitem alone differs"
	cmp "$D/csv/part.csv" one/part.csv || fail "part alone differs"
	[ "$(ls one)" = "$(printf 'lineitem.csv\npart.csv')" ] || fail "one/: $(ls one)"
	cmp "$D/csv/orders.csv" orders.csv || fail "orders on stdout differ"
	"$TG" -s 0.01 -o col -j 1 --format col -T lineitem
	cmp "$D/col/lineitem.col" col/lineitem.col || fail "col -j 1 differs"
}

@test "another seed: other bytes, the same cardinalities of fixed tables" {
	"$TG" -s 0.01 --seed 7 -o other
	local t
	for t in $TABLES; do
		! cmp -s "$D/csv/$t.csv" "other/$t.csv" || fail "$t: seed 7 gave the same bytes"
	done
	[ "$(wc -l <other/orders.csv)" -eq 15001 ]
	[ "$(wc -l <other/partsupp.csv)" -eq 8001 ]
}

@test "scale: cardinalities follow SF; SF 0.1 lineitem is near 600,000" {
	"$TG" -s 0.1 -T supplier,orders,lineitem -o - -T lineitem 2>err && fail "-o - took two tables"
	"$TG" -s 0.05 -T supplier,orders -o s
	[ "$(wc -l <s/supplier.csv)" -eq 501 ]
	[ "$(wc -l <s/orders.csv)" -eq 75001 ]
	n=$("$TG" -s 0.1 -T lineitem -o - | wc -l)
	[ "$n" -gt 590000 ] && [ "$n" -lt 610000 ] || fail "SF 0.1 lineitem: $n lines"
}

@test "command line: --help, --version, usage errors, a full disk" {
	run --separate-stderr tpchgen --help
	status_is 0
	[[ $output == *usage:*tpchgen* ]] || fail "--help: $output"
	run --separate-stderr "$TG" --version
	status_is 0
	assert_output --regexp "^tpchgen \(colpipe\) $VERSION"
	for args in "-s 0" "-s x" "-s 0.001" "-s 0.015" "-T nosuch" "--format parquet" \
	    "--seed -1" "--no-such-option" "stray" "-o - " "-z"; do
		run --separate-stderr tpchgen $args
		[ "$status" -eq 2 ] || fail "tpchgen $args: status $status"
		stdout_empty
		[[ $stderr == tpchgen:* ]] || fail "tpchgen $args: $stderr"
	done
	echo x >afile
	run --separate-stderr "$TG" -s 0.01 -T region -o afile
	status_is 2
	stderr_has "not a directory"
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr bash -c "'$TG' -s 0.01 -T lineitem -o - >/dev/full"
	status_is 5
	run --separate-stderr bash -c "'$TG' -s 0.01 -T region -o - >/dev/full"
	status_is 5
	run --separate-stderr bash -c "'$TG' -s 0.01 -T lineitem -o - | head -c 10"
	status_is 0
	stderr_empty
}

@test "killed mid-run: no file left, named or hidden; old files kept" {
	mkdir d
	echo old >d/orders.csv
	"$TG" -s 0.2 -T orders,lineitem -o d -j 1 &
	local pid=$!
	sleep 0.3
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" || true
	[ "$(cat d/orders.csv | head -c 3)" = old ] ||
	    [ "$(head -n1 d/orders.csv)" = "o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,o_orderpriority,o_clerk,o_shippriority,o_comment" ] ||
	    fail "orders.csv is neither the old file nor a whole new one"
	for f in $(ls -A d); do
		case $f in
		orders.csv | lineitem.csv) ;;
		*) fail "left: $f" ;;
		esac
	done
}

@test "man page: clean under mandoc, and names every long option of --help" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	local page="$TOP/harness/tpchgen/tpchgen.1" opt text
	run --separate-stderr mandoc -Tlint -Wwarning "$page"
	[ "$status" -eq 0 ] || fail "mandoc -Tlint: $output $stderr"
	text=$(mandoc -Tascii "$page" | col -b)
	for opt in $("$TG" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		printf '%s\n' "$text" | grep -q -- "$opt" ||
		    fail "--help lists $opt, tpchgen.1 does not"
	done
}
