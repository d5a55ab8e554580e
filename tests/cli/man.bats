#!/usr/bin/env bats
# man.bats - every tool has a man page, every page is clean under mandoc's
# linter, and what a page and --help say about options agree.

load helpers

@test "every tool in tools/ has a man page in section 1" {
	for d in "$TOP"/tools/*/; do
		t=$(basename "$d")
		[ -f "$TOP/man/$t.1" ] || fail "tools/$t has no man/$t.1"
	done
	[ -f "$TOP/man/mlspill3.5" ] || fail "man/mlspill3.5 is missing"
}

@test "man pages are clean under mandoc -Tlint -Wwarning" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	run --separate-stderr mandoc -Tlint -Wwarning "$TOP"/man/*.[15]
	[ "$status" -eq 0 ] || fail "mandoc -Tlint: $output $stderr"
}

@test "every long option in --help is documented in the man page" {
	for d in "$TOP"/tools/*/; do
		t=$(basename "$d")
		page=$(mandoc -Tascii "$TOP/man/$t.1" | col -b)
		help=$("$t" --help) || fail "$t --help failed"
		[ -n "$help" ] || fail "$t --help printed nothing"
		for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			printf '%s\n' "$page" | grep -q -- "$opt" ||
				fail "$t --help lists $opt, man/$t.1 does not"
		done
	done
}
