#!/usr/bin/env bats
# valgrind.bats - the tools are valgrind-clean (no invalid access, no
# uninitialised use, no definite leak) on small real pipelines, for the
# release and debug builds (ASan binaries cannot run under valgrind; the
# asan build is its own check).

load helpers

setup() {
	[ "${MODE:-release}" != asan ] || skip "asan build: sanitizers check this"
	command -v valgrind >/dev/null || skip "valgrind not installed"
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
