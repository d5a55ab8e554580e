#!/usr/bin/env bats
# demo.bats - "make demo" (harness/samples/demo.sh) still runs and checks
# its own answers with the binaries under test.

load helpers

@test "the demo pipeline runs and ends 'demo: ok'" {
	need csv2col col2csv colsort col2parquet
	run --separate-stderr env BUILD="${BIN%/bin}" "$TOP/harness/samples/demo.sh"
	status_is 0
	[[ ${lines[${#lines[@]}-1]} == "demo: ok" ]] || fail "last line: ${lines[${#lines[@]}-1]}"
}
