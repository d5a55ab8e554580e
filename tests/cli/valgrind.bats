#!/usr/bin/env bats
# valgrind.bats - the tools are valgrind-clean (no invalid access, no
# uninitialised use, no definite leak) on small real pipelines, for the
# release and debug builds (ASan binaries cannot run under valgrind; the
# asan build is its own check).

load helpers

setup() {
	[ "${MODE:-release}" != asan ] || skip "asan build: sanitizers check this"
	command -v valgrind >/dev/null || skip "valgrind not installed"
	[ -z "${COLPIPE_VALGRIND:-}" ] ||
	    skip "make check-valgrind runs every tool under valgrind already"
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN {
		print "id,price,day,name,flag,ts"
		for (i = 1; i <= 3000; i++)
			printf "%d,%d.%02d,2024-%02d-%02d,\"n %d, \"\"q\"\"\",%s,%s\n",
			    i, i * 7, i % 100, i % 12 + 1, i % 28 + 1, i,
			    i % 2 ? "true" : "false",
			    i % 5 ? "2024-01-02 03:04:05.25" : ""
	}' >in.csv
	gzip -c in.csv >in.csv.gz
}

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect "$@"
}

@test "csv2col is valgrind-clean on plain, gzip and bad input" {
	run --separate-stderr vg csv2col -o a.col in.csv
	status_is 0
	run --separate-stderr vg csv2col -j1 -z -o b.col in.csv.gz
	status_is 0
	printf 'a,b\n1,2\n3\n' >bad.csv
	run --separate-stderr vg csv2col bad.csv
	status_is 3
	run --separate-stderr vg csv2col --rejects rej.txt bad.csv
	status_is 0
}

@test "col2csv is valgrind-clean in every format and on a truncated stream" {
	csv2col -o a.col in.csv
	for f in csv tsv jsonl table; do
		run --separate-stderr vg col2csv -f "$f" -o out.txt a.col
		status_is 0
	done
	head -c 3000 a.col >cut.col
	run --separate-stderr vg col2csv cut.col
	status_is 3
}

@test "colscan and colagg are valgrind-clean over MLSPILL3 and Parquet" {
	csv2col -o a.col in.csv
	col2parquet --row-group-rows 1000 -o a.parquet a.col
	run --separate-stderr vg colscan -o s.col \
	    -w "price > 100 AND name LIKE 'n 1%'" \
	    -s "id, upper(name) AS u, id * 2 AS i2, ts::VARCHAR AS t" a.col
	status_is 0
	run --separate-stderr vg colscan -j2 -o p.col \
	    -w "id < 1500 AND flag" -s "* EXCLUDE (ts), day + 1 AS d1" a.parquet
	status_is 0
	run --separate-stderr vg colscan --count -w "id BETWEEN 10 AND 20" \
	    a.parquet
	status_is 0
	run --separate-stderr vg colagg -o g.col --by "flag, month(day) AS m" \
	    "count(*), sum(price) AS s, avg(price), min(name), max(ts)" a.col
	status_is 0
	run --separate-stderr vg colagg -m 256K -o h.col --by id \
	    "count(*) AS n, sum(price) AS s, max(name)" --having "n >= 1" a.col
	status_is 0
	head -c 20000 a.col >cut.col
	run --separate-stderr vg colagg --by flag "count(*)" cut.col
	status_is 3
}

@test "colsort, coljoin and col2parquet are valgrind-clean, spilling too" {
	csv2col -o a.col in.csv
	run --separate-stderr vg colsort -m 256K -k name -k price:desc -o s.col \
	    a.col
	status_is 0
	run --separate-stderr vg coljoin -m 256K --on id --suffix _r -o j.col \
	    a.col a.col
	status_is 0
	run --separate-stderr vg coljoin --type left --on day=day \
	    --suffix _r -o k.col a.col a.col
	status_is 0
	run --separate-stderr vg col2parquet -c zstd -o a.parquet a.col
	status_is 0
}
