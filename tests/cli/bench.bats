#!/usr/bin/env bats
# bench.bats - harness/bench.sh on SF 0.01 from tpchgen, one family, one
# run per case: the record it writes has the shape harness/README
# describes, and a wrong answer, a spill case that did not spill and a
# case that leaves temporary files each stop the run before anything is
# timed, without a record.  The peers that break it are cases added with
# BENCH_EXTRA, the way a new case would be.

load helpers

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	export LC_ALL=C
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	export LC_ALL=C
	need csv2col col2csv colscan colagg coljoin colsort col2parquet
	[ -x "$BIN/../harness/bin/tpchgen" ] ||
	    fail "tpchgen not built: $BIN/../harness/bin/tpchgen is missing"
	[ -d "$TOP/tests/oracle/node_modules/@duckdb/node-api" ] ||
	    fail "DuckDB missing: make deps"
	export BUILD=${BUILD:-$TOP/build/${MODE:-release}}
	export SF=0.01 RUNS=1 WARMUPS=0 RECORDS=$BATS_TEST_TMPDIR/rec
	export TMPDIR=$BATS_TEST_TMPDIR
}

bench() { "$TOP/harness/bench.sh" "$@"; }

@test "a run writes one record: conditions, hashes, every case's figures" {
	CASES=pipe run bench
	assert_success
	assert_output --partial 'pipe/three'
	assert_output --partial 'vs pipe/two'
	[ "$(ls rec | wc -l)" -eq 1 ]
	rec=$(ls rec/*.json)
	run node -e '
	const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const hex = (s) => /^[0-9a-f]{64}$/.test(s);
	const bad = [];
	const need = (ok, what) => { if (!ok) bad.push(what); };
	need(r.schema === "colpipe-bench/2", "schema");
	need(typeof r.machine.cpu === "string" && r.machine.cores > 0, "machine");
	need(r.machine.advisory.loadavg_start.split(" ").length === 3, "load");
	need(r.build.mode && r.build.flags, "build flags");
	need(hex(r.build.binaries_sha256.csv2col), "binary hash");
	need(hex(r.build.binaries_sha256.tpchgen), "tpchgen hash");
	need(hex(r.data.sha256) && r.data.sf === "0.01", "data hash");
	need(hex(r.data.files["csv/lineitem.csv"].sha256), "file hash");
	need(r.method.runs === 1 && r.method.warmups === 0, "method");
	const ids = r.cases.map((c) => c.id).join(" ");
	need(ids === "pipe/hop pipe/cat pipe/two pipe/three", "ids " + ids);
	for (const c of r.cases) {
		need(c.command && hex(c.output_sha256), c.id + " command");
		for (const k of ["best_wall_ms", "median_wall_ms", "max_wall_ms",
		    "best_cpu_ms", "median_cpu_ms", "peak_rss_mb", "spread"])
			need(typeof c[k] === "number", c.id + " " + k);
		need(c.wall_ms.length === 1, c.id + " runs");
		need(c.sys_ms.length === 1 && c.sys_ms[0] >= 0 &&
		    c.sys_ms[0] <= c.cpu_ms[0], c.id + " sys_ms");
	}
	const t = r.cases.find((c) => c.id === "pipe/three");
	need(t.peer === "pipe/two" && typeof t.vs_peer.best_wall === "number",
	    "vs_peer");
	// The round trips give back the input: the same output hash.
	need(t.output_sha256 === r.data.files["csv/lineitem.csv"].sha256,
	    "round trip hash");
	if (bad.length) { console.log(bad.join("\n")); process.exit(1); }
	' "$rec"
	assert_success
	# The same record held against itself: comparable, and all noise.
	run node "$TOP/harness/compare.mjs" "$rec" "$rec"
	assert_success
	assert_output --partial 'noise'
	# Against a record of other data: refused.
	sed 's/"sha256": "[0-9a-f]*"/"sha256": "0"/' "$rec" >other.json
	run node "$TOP/harness/compare.mjs" "$rec" other.json
	[ "$status" -eq 3 ]
	assert_output --partial 'differs: data.sha256'
}

@test "a case of 0 runs keeps its answer run; the second run makes no data" {
	cat >extra <<'EOF'
CASE_RUNS=0
c pipe/once pipe/cat "same $L" 'cat "$LCSV" | cat' 'timed by its answer run'
CASE_RUNS=
EOF
	BENCH_EXTRA=$PWD/extra CASES=pipe run bench
	assert_success
	refute_output --partial 'timing pipe/once'
	assert_output --partial 'timing pipe/two'
	refute_output --partial 'kept in'
	first=$(ls rec/*.json)
	# The tables tpchgen made and the files derived from them are kept;
	# older directories of this SF and of the cache's own naming go,
	# nothing else (another SF's, a derived one from before .sf).
	c=$TMPDIR/colpipe-bench-cache
	mkdir -p "$c/data-0123456789abcdef/col" "$c/data-00000000000000aa" \
	    "$c/data-00000000000000bb" "$c/gen-sf0.01-fedcba9876543210" \
	    "$c/gen-sf1-fedcba9876543210" "$c/data-not-a-key" "$c/mine"
	echo 0.01 >"$c/data-0123456789abcdef/.sf"
	echo 1 >"$c/data-00000000000000bb/.sf"
	touch -d '2 days ago' "$c"/data-* "$c"/gen-sf*-fedcba9876543210 \
	    "$c/mine"
	BENCH_CACHE_KEEP=1 BENCH_EXTRA=$PWD/extra CASES=pipe run bench
	assert_success
	assert_output --partial 'kept in'
	assert_output --partial 'removed data-0123456789abcdef'
	assert_output --partial 'removed data-00000000000000aa'
	assert_output --partial 'removed gen-sf0.01-fedcba9876543210'
	[ ! -e "$c/data-0123456789abcdef" ]
	[ ! -e "$c/data-00000000000000aa" ]
	[ ! -e "$c/gen-sf0.01-fedcba9876543210" ]
	[ -d "$c/gen-sf1-fedcba9876543210" ] && [ -d "$c/data-00000000000000bb" ]
	[ -d "$c/data-not-a-key" ] && [ -d "$c/mine" ]
	[ "$(ls -d "$c"/data-* | wc -l)" -eq 3 ]
	BENCH_CACHE_KEEP=x CASES=pipe run bench
	[ "$status" -eq 2 ]
	assert_output --partial 'BENCH_CACHE_KEEP=x'
	rec=$(ls rec/*.json | grep -vx "$first")
	run node -e '
	const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const c = r.cases.find((x) => x.id === "pipe/once");
	const t = r.cases.find((x) => x.id === "pipe/two");
	if (c.runs !== 1 || c.timed !== "the answer run" || t.timed ||
	    r.method.long_runs !== 1) {
		console.log(JSON.stringify(c));
		process.exit(1);
	}
	' "$rec"
	assert_success
	run node "$TOP/harness/compare.mjs" "$first" "$rec"
	assert_success
	# A case timed by its answer run is not held against one timed anew.
	node -e '
	const fs = require("fs");
	const r = JSON.parse(fs.readFileSync(process.argv[1]));
	delete r.cases.find((x) => x.id === "pipe/once").timed;
	fs.writeFileSync("other.json", JSON.stringify(r));
	' "$rec"
	run node "$TOP/harness/compare.mjs" "$rec" other.json
	[ "$status" -eq 3 ]
	assert_output --partial 'differs: runs of pipe/once'
}

@test "a wrong answer stops the run before any timing, without a record" {
	# Two stages, but the last lines lost: a peer that answers wrong.
	cat >extra <<'EOF'
c pipe/wrong pipe/two "same $L" \
    '"$B/csv2col" "$LCSV" | "$B/col2csv" | head -n 5' 'a wrong peer'
EOF
	BENCH_EXTRA=$PWD/extra CASES=pipe run bench
	[ "$status" -eq 1 ]
	assert_output --partial 'pipe/wrong: WRONG ANSWER'
	refute_output --partial 'timing'
	[ ! -e rec ] || [ -z "$(ls rec)" ]
}

@test "a spill case that did not spill, or left files behind, stops the run" {
	cat >extra <<'EOF'
c pipe/nospill - 'spilled' '"$B/colsort" --stats -m 1G -T "$T/spill" \
    -k l_orderkey "$LCOL" 2>"$T/stats"' 'sorts in memory'
EOF
	BENCH_EXTRA=$PWD/extra CASES=pipe run bench
	[ "$status" -eq 1 ]
	assert_output --partial 'pipe/nospill: WRONG ANSWER'
	cat >extra <<'EOF'
c pipe/litter - ':' 'echo x >"$T/spill/left"' 'leaves a file'
EOF
	BENCH_EXTRA=$PWD/extra CASES=pipe run bench
	[ "$status" -eq 1 ]
	assert_output --partial 'pipe/litter: left files in its temporary directory'
	[ ! -e rec ] || [ -z "$(ls rec)" ]
}

@test "usage: an unknown family or option is exit 2, naming the families" {
	CASES=pipe,nosuch run bench
	[ "$status" -eq 2 ]
	assert_output --partial 'no family nosuch'
	assert_output --partial 'startup scan filter'
	run bench --nosuch
	[ "$status" -eq 2 ]
	assert_output --partial 'usage: harness/bench.sh'
}
