#!/usr/bin/env bats
# usability.bats - what a new user coming from sort(1), xsv and DuckDB
# types first: sort(1)'s spellings, sizes as people write them, messages
# that say what to type instead, and output sized for a terminal.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	need csv2col col2csv colsort
	printf '%s\n' 'id,name,amount' '1,b,3.50' '2,a,1.25' '3,c,2.00' \
	    '4,a,0.50' >t.csv
	csv2col t.csv >t.col
}

ids() {
	col2csv --no-header "$@" | cut -d, -f1 | tr '\n' ' '
}

@test "colsort: an unknown key lists the columns and the closest spelling" {
	run --separate-stderr colsort -k amuont t.col
	status_is 2
	stdout_empty
	stderr_has "unknown key column 'amuont' (did you mean 'amount'?)"
	stderr_has "the columns are id, name, amount"
	run --separate-stderr colsort -k Amount t.col
	status_is 2
	stderr_has "(did you mean 'amount'?)"
	run --separate-stderr colsort -k nosuch t.col
	status_is 2
	stderr_has "unknown key column 'nosuch'; the columns are id, name, amount"
}

@test "colsort: sort(1) keys get the colpipe spelling" {
	run --separate-stderr colsort -k 3 t.col
	status_is 2
	stderr_has "field 3 is 'amount', so type -k amount (descending: -k amount:desc"
	run --separate-stderr colsort -k 3,3nr t.col
	status_is 2
	stderr_has "so type -k amount:desc"
	run --separate-stderr colsort -k 9,9 t.col
	status_is 2
	stderr_has "sort(1)'s field syntax"
	stderr_has "the input has 3 columns; the columns are id, name, amount"
	run --separate-stderr colsort -k amount,amount t.col
	status_is 2
	stderr_has "as in -k amount (or -k amount:desc for descending)"
}

@test "colsort: key modifiers are case insensitive" {
	run --separate-stderr sh -c 'colsort -k amount:DESC t.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	status_is 0
	assert_output "1 3 2 4 "
	run --separate-stderr sh -c 'colsort -k name:Desc:NULLS-FIRST -k id t.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	status_is 0
	assert_output "3 1 2 4 "
}

@test "colsort: sort(1)'s -r, -s, -S and -o" {
	run --separate-stderr sh -c 'colsort -r -k name -k id t.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	status_is 0
	assert_output "3 1 4 2 "
	# A key with its own direction keeps it, as under sort -r.
	run --separate-stderr sh -c 'colsort --reverse -k name -k id:asc t.col | col2csv --no-header | cut -d, -f1 | tr "\n" " "'
	assert_output "3 1 2 4 "
	run --separate-stderr sh -c 'colsort -s -S 1M -k name -o out.col t.col && col2csv --no-header out.col | cut -d, -f1 | tr "\n" " "'
	status_is 0
	stderr_empty
	assert_output "2 4 1 3 "
	run --separate-stderr colsort --stable -S 12Q -k name t.col
	status_is 2
	stderr_has "invalid size '12Q'"
}

@test "sizes: 64mb, 1.5G and 50% are budgets, shown as given" {
	for m in 64mb 1.5G 50% 512KiB 300kB 2m; do
		run --separate-stderr sh -c "colsort --stats -m $m -k name t.col >/dev/null"
		status_is 0
		stderr_has "memory budget $m"
	done
	run --separate-stderr sh -c 'colsort --stats -S 50% -k name t.col >/dev/null'
	stderr_matches "memory budget 50% \([0-9.]+ MB\)"
	run --separate-stderr sh -c 'colsort --stats -k name t.col >/dev/null'
	stderr_matches "memory budget [0-9.]+ MB \(the default\)"
	# colagg and coljoin show theirs the same way.
	run --separate-stderr sh -c 'colagg --stats -m 1.5G --by name "count(*)" t.col >/dev/null'
	status_is 0
	stderr_has "memory budget 1.5G"
	run --separate-stderr sh -c 'coljoin --stats -m 64mb --suffix _r --on name=name t.col t.col >/dev/null'
	status_is 0
	stderr_has "memory budget 64mb"
	for m in 1.5 101% 1.G 50%M -1M; do
		run --separate-stderr colsort -m "$m" -k name t.col
		status_is 2
		stderr_has "'$m'"
	done
	# A percentage is of the memory, not of the spill.
	run --separate-stderr colsort --max-spill 50% -k name t.col
	status_is 2
}

@test "colsort -c: the row number and both keys" {
	run --separate-stderr colsort -c -k name -k amount t.col
	status_is 1
	[ "$stderr" = "colsort: t.col: disorder at row 2: ('a', 1.25) after ('b', 3.50)" ] ||
		fail "message: $stderr"
	# Across frames: the row before is the last of the frame before.
	printf '%s\n' 'n' 1 2 3 2 >f.csv
	csv2col --batch-rows 3 f.csv >f.col
	run --separate-stderr colsort -c -k n f.col
	status_is 1
	[ "$stderr" = "colsort: f.col: disorder at row 4: (2) after (3)" ] ||
		fail "message: $stderr"
}

@test "an unknown option is one line and 'Try --help', as a bad value is" {
	for t in $(all_tools); do
		for args in "--bogus" "-Q" "--stats=1" "--help=x" "--output"; do
			# By its path: the message names the tool, not the path.
			run --separate-stderr "$BIN/$t" $args
			status_is 2
			stdout_empty
			[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 2 ] ||
				fail "$t $args: not two lines: $stderr"
			[[ $stderr == "$t: "*"
Try '$t --help' for more information." ]] ||
				fail "$t $args: $stderr"
		done
	done
	run --separate-stderr colsort --bogus
	stderr_has "colsort: unknown option '--bogus'"
	run --separate-stderr colsort --revrse -k id t.col
	stderr_has "unknown option '--revrse' (did you mean '--reverse'?)"
	run --separate-stderr colsort --stats=1 -k id t.col
	stderr_has "option '--stats' takes no value"
	run --separate-stderr colsort -k
	stderr_has "option -k needs a value"
	run --separate-stderr colsort --com -k id t.col
	stderr_has "option '--com' is ambiguous: --compress, --compress-spill"
}

@test "col2csv: an option without effect in a combination is an error naming both" {
	for f in tsv jsonl table; do
		run --separate-stderr col2csv -f $f -d ';' t.col
		status_is 2
		stdout_empty
		stderr_has "col2csv: -d has no effect with -f $f"
	done
	run --separate-stderr col2csv -d ';' -f tsv t.col
	status_is 2
	run --separate-stderr col2csv -f jsonl --no-header t.col
	status_is 2
	stderr_has "--no-header has no effect with -f jsonl"
	run --separate-stderr col2csv -f csv -d ';' --no-header t.col
	status_is 0
	assert_line -n 0 "1;b;3.50"
}

@test "--stats of a failed run says it failed, and the error comes after" {
	printf '%s\n' a,b 1,2 3,x >bad.csv
	run --separate-stderr sh -c 'csv2col --stats -s a:int64,b:int64 bad.csv >/dev/null'
	status_is 3
	stderr_has "csv2col: failed (the error follows); so far: 0 rows, 0 rejected"
	last=$(printf '%s\n' "$stderr" | tail -n 1)
	[[ $last == "csv2col: bad.csv:3:2: "* ]] || fail "last line: $last"
	run --separate-stderr sh -c 'csv2col --stats -s a:int64,b:int64 --rejects rej.csv --max-errors 0 bad.csv >/dev/null'
	status_is 4
	stderr_has "failed (the error follows); so far: 0 rows, 1 rejected"
	# A good run says nothing of the kind.
	run --separate-stderr sh -c 'csv2col --stats t.csv >/dev/null'
	status_is 0
	[[ $stderr != *failed* ]] || fail "$stderr"
	stderr_has "csv2col: 4 rows, 0 rejected"
}

@test "csv2col -s: SQL and Arrow type names; an unknown one lists the types" {
	printf '%s\n' a,b,c,d,e 1.5,x,2024-01-02T03:04:05,7,1.25 >n.csv
	for spec in 'a:real,b:utf8,c:datetime,d:smallint,e:numeric(5,2)' \
	    'a:FLOAT,b:varchar(20),c:timestamp,d:int2,e:dec(5,2)' \
	    'a:double precision,b:character varying(8),c:datetime,d:tinyint,e:decimal(5,2)' \
	    'a:float4,b:large_string,c:timestamp[us],d:int16,e:decimal(5,2)'; do
		run --separate-stderr sh -c "csv2col -s '$spec' n.csv | col2csv"
		status_is 0
		assert_line -n 1 "1.5,x,2024-01-02 03:04:05,7,1.25"
	done
	run --separate-stderr sh -c "csv2col --stats -s 'a:real,b:utf8,c:datetime,d:smallint' n.csv >/dev/null"
	stderr_has "schema: a:float64,b:string,c:timestamp,d:int32,e:"
	run --separate-stderr csv2col -s a:doubel n.csv
	status_is 2
	stdout_empty
	stderr_has "unknown type 'doubel' (did you mean 'double'?); the types are bool, int32, int64, float64, decimal(p,s), date, timestamp and string"
	run --separate-stderr csv2col -s a:varchar2 n.csv
	status_is 2
	stderr_has "the types are bool"
}

@test "csv2col(1) lists every type name the parser takes" {
	page=$(mandoc -Tascii "$TOP/man/csv2col.1" | col -b | sed -n '/^TYPE NAMES/,/^TIMESTAMPS/p')
	printf 'a\n1\n' >one.csv
	for t in bool boolean logical int32 int integer int4 smallint int2 \
	    int16 tinyint int64 bigint long int8 float64 double float8 float \
	    real float4 float32 'double precision' 'numeric(5,2)' 'dec(5,2)' \
	    'decimal(5)' date date32 timestamp datetime 'timestamp[us]' \
	    string text varchar char bpchar utf8 large_utf8 large_string \
	    'varchar(9)' 'char(9)' 'nvarchar(9)' 'character(9)' \
	    'character varying(9)'; do
		name=${t%%(*}
		[[ $page == *"$name"* ]] || fail "csv2col(1) does not list '$name'"
		# 1 is no bool: a data error (3), but not a usage error.
		run --separate-stderr sh -c "csv2col -s 'a:$t' one.csv >/dev/null"
		[ "$status" -ne 2 ] || fail "csv2col(1) lists '$t', -s refuses it: $stderr"
	done
}

# duck SQL...: DuckDB's answers, one row a line, fields joined by '|'.
duck() {
	command -v node >/dev/null || skip "node not installed"
	[ -d "$TOP/tests/oracle/node_modules/@duckdb" ] ||
		skip "DuckDB not installed (tests/oracle: npm ci)"
	node --input-type=module -e '
import { createRequire } from "node:module";
const require = createRequire(process.argv[1] + "/tests/oracle/package.json");
const { DuckDBInstance } = require("@duckdb/node-api");
const con = await (await DuckDBInstance.create(":memory:")).connect();
for (const q of process.argv.slice(2)) {
	const r = await con.runAndReadAll(q);
	for (const row of r.getRows()) console.log(row.map(String).join("|"));
}' "$TOP" "$@"
}

@test "col2parquet --no-statistics: help, page and file agree (no NULL counts either)" {
	need col2parquet
	col2parquet --help | grep -q -- "--no-statistics.*(min, max, NULL count)" ||
		fail "--help: $(col2parquet --help | grep statistics)"
	page=$(mandoc -Tascii "$TOP/man/col2parquet.1" | col -b | tr -s ' \t\n' '   ')
	[[ $page == *"--no-statistics Write no column chunk statistics at all: no minimum, maximum or NULL count."* ]] ||
		fail "col2parquet(1) says otherwise"
	printf '%s\n' a,s 1,x ,y >n.csv
	csv2col n.csv | col2parquet --no-statistics -o ns.parquet
	csv2col n.csv | col2parquet -o s.parquet
	run duck "select path_in_schema, stats_null_count from parquet_metadata('ns.parquet') order by 1" \
	    "select path_in_schema, stats_null_count from parquet_metadata('s.parquet') order by 1"
	status_is 0
	assert_output "a|null
s|null
a|1
s|0"
}

@test "README: under pipefail a pipeline ending in | head is 141, as with coreutils" {
	make_big big.csv 200000
	run bash -o pipefail -c 'seq 10000000 | head -n 1 >/dev/null'
	want=$status
	[ "$want" -eq 141 ] || skip "this shell's pipefail gives $want for coreutils"
	run --separate-stderr bash -o pipefail -c 'csv2col big.csv | col2csv | head -n 1 >/dev/null'
	status_is 141
	stderr_empty
	run --separate-stderr bash -c 'csv2col big.csv | col2csv | head -n 1 >/dev/null'
	status_is 0
	grep -q 'under "set -o pipefail"' "$TOP/README" || fail "README does not say it"
	grep -q 'it is 141 (128 + SIGPIPE)' "$TOP/README" || fail "README does not say it"
}

@test "Parquet timestamps: zone-less by default, UTC on request; both read back" {
	need col2parquet colscan
	printf '%s\n' id,ts '1,2024-01-02 09:23:20' '2,2024-06-01 12:00:00.5' 3, >ts.csv
	csv2col ts.csv | col2parquet -o local.parquet
	csv2col ts.csv | col2parquet --utc-timestamps -o utc.parquet
	# colpipe's own reader: the same values from both.
	for f in local utc; do
		run --separate-stderr sh -c "colscan $f.parquet | col2csv"
		status_is 0
		assert_output "$(cat ts.csv | sed 's/\.5$/.500000/')"
	done
	run duck "SET TimeZone = 'Europe/Berlin'" \
	    "select typeof(ts), ts::varchar from 'local.parquet' order by id" \
	    "select typeof(ts), ts::varchar from 'utc.parquet' order by id" \
	    "select logical_type like '%isAdjustedToUTC=0%', converted_type from parquet_schema('local.parquet') where name = 'ts'" \
	    "select converted_type from parquet_schema('utc.parquet') where name = 'ts'"
	status_is 0
	assert_output "TIMESTAMP|2024-01-02 09:23:20
TIMESTAMP|2024-06-01 12:00:00.5
TIMESTAMP|null
TIMESTAMP WITH TIME ZONE|2024-01-02 10:23:20+01
TIMESTAMP WITH TIME ZONE|2024-06-01 14:00:00.5+02
TIMESTAMP WITH TIME ZONE|null
true|null
TIMESTAMP_MICROS"
}

@test "col2csv -f table: fitted to --width, COLUMNS on a terminal; --wide turns it off" {
	printf '%s\n' 'c,n,d' 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ,1,2024-01-02' \
	    'short,22,2024-01-03' >w.csv
	csv2col w.csv >w.col
	# Fits as it is: nothing cut.
	run --separate-stderr col2csv -f table --width 80 w.col
	status_is 0
	assert_line -n 2 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ   1  2024-01-02"
	# Too wide: the string is cut to 32 with an ellipsis, the rest fit.
	run --separate-stderr col2csv -f table --width 50 w.col
	status_is 0
	assert_line -n 2 "abcdefghijklmnopqrstuvwxyz01234…   1  2024-01-02"
	assert_line -n 3 "short                             22  2024-01-03"
	assert_line -n 4 "(2 rows)"
	# Narrower still: columns dropped from the right, named at the end.
	run --separate-stderr col2csv -f table --width 36 w.col
	status_is 0
	assert_line -n 0 "c                                  n"
	assert_line -n 4 "(2 rows; 1 of 3 columns not shown: d; --wide shows them)"
	run --separate-stderr col2csv -f table --width 20 w.col
	assert_line -n 2 "abcdefghijklmnopqrs…"
	assert_line -n 4 "(2 rows; 2 of 3 columns not shown: n, d; --wide shows them)"
	# Not a terminal: never fitted, COLUMNS or not.
	run --separate-stderr env COLUMNS=20 col2csv -f table w.col
	assert_line -n 2 "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ   1  2024-01-02"
	command -v script >/dev/null || skip "script(1) not installed: no terminal"
	run script -qec "COLUMNS=20 col2csv -f table w.col" /dev/null
	[[ $output == *"abcdefghijklmnopqrs…"* ]] || fail "on a terminal: $output"
	[[ $output == *"2 of 3 columns not shown: n, d"* ]] || fail "on a terminal: $output"
	run script -qec "COLUMNS=20 col2csv -f table --wide w.col" /dev/null
	[[ $output == *"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ   1  2024-01-02"* ]] ||
		fail "--wide on a terminal: $output"
	run --separate-stderr col2csv -f csv --wide w.col
	status_is 2
	stderr_has "--wide has no effect with -f csv"
	run --separate-stderr col2csv -f table --wide --width 40 w.col
	status_is 2
}

@test "col2csv -f table: display width, and --limit sizes from every row" {
	printf '%s\n' 'name,n' '日本語,1' 'abc,2' 'été,3' >u.csv
	run --separate-stderr sh -c 'csv2col u.csv | col2csv -f table'
	status_is 0
	assert_output "name    n
------  -
日本語  1
abc     2
été     3
(3 rows)"
	# Two-row frames, the long value in the second: unbounded, the
	# first frame sizes the column; with --limit, every row does.
	printf '%s\n' s,n a,1 b,2 'a longer value,3' c,4 >l.csv
	csv2col --batch-rows 2 l.csv >l.col
	run --separate-stderr col2csv -f table l.col
	assert_line -n 2 "a  1"
	run --separate-stderr col2csv -f table --limit 3 l.col
	status_is 0
	assert_output "s               n
--------------  -
a               1
b               2
a longer value  3
(3 rows)"
	run --separate-stderr sh -c 'col2csv --limit 2 --no-header l.col'
	assert_output "a,1
b,2"
}
