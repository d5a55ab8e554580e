#!/bin/sh
# replay.sh TARGET DIR... - runs a fuzz target on every file of its corpus
# and regression directories (a missing one is empty) and prints TAP: one
# result per file, so a crash names the input that caused it.
target=$1
shift
n=0
fail=0
for f in $(for d in "$@"; do ls -d "$d"/* 2>/dev/null; done); do
	[ -f "$f" ] || continue
	n=$((n + 1))
	if out=$("$target" "$f" 2>&1); then
		echo "ok $n - ${f#"${f%/*/*}/"}"
	else
		echo "not ok $n - ${f#"${f%/*/*}/"}"
		printf '%s\n' "$out" | head -n 20 | sed 's/^/# /'
		fail=1
	fi
done
echo "1..$n"
exit $fail
