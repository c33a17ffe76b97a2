#!/bin/sh
# t_options_cli.sh: the option table (src/options.def) as the command line and
# the docs give it, as TAP: `hspgemm options` lists each option with the
# value a command line gives it and the library's default (the Python
# package's are checked by python/tests: test_options_are_the_library_table);
# no flag changes a default; every flag of the table is taken and sets its
# member; doc/python.md's Python signature and doc/petsc.md's PETSc options say the table's.
hsp="${top_builddir:-.}/hspgemm"
python_doc="${top_srcdir:-.}/doc/python.md"
petsc_doc="${top_srcdir:-.}/doc/petsc.md"
. "${top_srcdir:-.}/tests/tap.sh"

run "$hsp" options
cp "$tmp/out" "$tmp/table"
[ $rc -eq 0 ] && [ "$(awk -F '\t' 'NF == 6' "$tmp/table" | wc -l)" -ge 19 ]
ok $? "hspgemm options lists the table: member, value, default, flag, keyword, PETSc option ($(wc -l <"$tmp/table"))"

# The command line sets no default of its own but --mem-limit's (the memory
# available when a command starts: README, --mem-limit).
differ=$(awk -F '\t' '$2 != $3 && $1 != "mem_limit" { printf " %s=%s (default %s)", $1, $2, $3 }' "$tmp/table")
[ -z "$differ" ]; ok $? "without flags the command line gives the library its defaults:$differ"

# A value each flag takes, other than its default, and the value listed then.
sample() {
    case $1 in
    --device) echo "cpu cpu" ;; --threads) echo "3 3" ;; --grow) echo "copy copy" ;;
    --methods) echo "paper heap,esc,merge" ;; --wavefront) echo "16 16" ;; --local-mem) echo "64K 65536" ;;
    --grow-start) echo "512 512" ;; --mem-limit) echo "1G 1073741824" ;; --small-nnz) echo "-1 -1" ;;
    --device-timeout) echo "2.5 2.5" ;; --profile) echo "none none" ;; --blocks) echo "4 4" ;;
    --cpu-share) echo "0.25 0.25" ;;
    esac
}
missing=""
wrong=""
while IFS="$(printf '\t')" read -r member value default flag keyword petsc; do
    [ "$flag" = - ] && continue
    set -- $(sample "$flag")
    case $default in 0 | 1) [ $# -eq 0 ] && set -- "" 1 ;; esac # a flag without a value
    if [ $# -ne 2 ]; then missing="$missing $flag"; continue; fi
    given=$flag${1:+=$1}
    got=$("$hsp" options "$given" | awk -F '\t' -v m="$member" '$1 == m { print $2 }')
    [ "$got" = "$2" ] && [ "$got" != "$default" ] || wrong="$wrong $given:$got"
done <"$tmp/table"
[ -z "$missing$wrong" ]; ok $? "every flag of the table is taken and sets its member (no sample:$missing; wrong:$wrong)"
run "$hsp" options --threads=5000
[ $rc -eq 2 ] && grep -q -- "--threads takes 0 (one per CPU the process may run on) to 4096" "$tmp/err"
ok $? "a flag's value out of its range is refused in the table's words: $(head -1 "$tmp/err")"

# doc/python.md: the Python Context's signature gives the table's defaults (True,
# False, None and quotes as C's 1, 0, NULL and text).
sig=$(tr '\n' ' ' <"$python_doc" | sed -n 's/.*`hspgemm\.Context(\([^)]*\))`.*/\1/p' | tr -d ' ' | tr ',' '\n' | grep =)
wrong=""
for kv in $sig; do
    k=${kv%%=*} v=$(echo "${kv#*=}" | sed 's/^True$/1/; s/^False$/0/; s/^None$/NULL/; s/^"\(.*\)"$/\1/; s/^0\.0$/0/')
    want=$(awk -F '\t' -v k="$k" '$5 == k { print $3 }' "$tmp/table")
    [ "$v" = "$want" ] || wrong="$wrong $k=$v (the table: ${want:-none})"
done
[ -n "$sig" ] && [ -z "$wrong" ]; ok $? "doc/python.md's hspgemm.Context(...) defaults are the table's:$wrong"
absent=""
for o in $(awk -F '\t' '$6 != "-" { print $6 }' "$tmp/table"); do
    grep -q -- "\`$o\`" "$petsc_doc" || absent="$absent $o"
done
[ -z "$absent" ]; ok $? "doc/petsc.md names each PETSc option of the table:$absent"

echo "1..$n"
exit $fail
