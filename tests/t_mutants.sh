#!/bin/sh
# t_mutants.sh: every planted bug of tests/mutation.sh still applies to the
# source (its text is there exactly once), so that `make mutation` plants
# each: a mutant whose text the code has lost would leave its bug untried.
src="${top_srcdir:-.}"
. "$src/tests/tap.sh"

run sh "$src/tests/mutation.sh" --check "$src"
ok $rc "every mutant of tests/mutation.sh applies to the source ($(grep -c ' applies ' "$tmp/out") of them)"
grep "DID NOT APPLY" "$tmp/out" | sed 's/^/# /'

# The check itself: a copy of kernels/solve.cl without the text of a mutant is reported.
mkdir -p "$tmp/tree/kernels"
grep -v 'u\[i\] += s;' "$src/kernels/solve.cl" > "$tmp/tree/kernels/solve.cl"
MUTANTS=solve-device-step run sh "$src/tests/mutation.sh" --check "$tmp/tree"
ok $((rc == 0)) "a mutant whose text is gone fails the check: $(grep -o 'DID NOT APPLY.*)' "$tmp/out")"

echo "1..$n"
exit $fail
