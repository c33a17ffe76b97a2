#!/bin/sh
# t_tune.sh: `hspgemm tune` and profiles (hsp_tune, hsp_options.profile) on
# the OpenCL device with buffers (PoCL here): the profile tune writes and
# rewrites, the methods a context takes from a profile and when it does not,
# C unchanged by them, and the errors of bad profiles, as TAP.
hsp="${top_builddir:-.}/hspgemm"
. "${top_srcdir:-.}/tests/opencl_device.sh"
. "${top_srcdir:-.}/tests/tap.sh"

run "$hsp" tune --device=cpu --profile="$tmp/p"
[ $rc -eq 1 ] && grep -q "device cpu computes rows on CPU threads.*tune a GPU device" "$tmp/err" && [ ! -e "$tmp/p" ]
ok $? "tune refuses the cpu device, saying why, and writes nothing"

dev=$(opencl_device "buffer SVM")
if [ -z "$dev" ]; then
    echo "1..$n # and the rest skipped: no OpenCL device with buffer SVM"
    exit $fail
fi
dev="$dev,nosvm"
on_gpu="--device=$dev --small-nnz=-1"
desc=$("$hsp" square --gen=poisson2d5:10 $on_gpu --stats=json --profile=none | sed 's/.*"device":"\([^"]*\)".*/\1/')

# tune writes the user's profile (XDG_CONFIG_HOME), its folders made
export XDG_CONFIG_HOME="$tmp/config"
run "$hsp" tune --device=$dev --gen=poisson2d5:60 --gen=random:3000,9 --repeat=3 --quiet
p="$tmp/config/hspgemm/profile"
[ $rc -eq 0 ] && [ -f "$p" ] && grep -q "^wrote $p:" "$tmp/out" && grep -qx "device double $desc" "$p"
ok $? "tune writes the device's section of the user's profile ($p) and prints it"
# the table: a line per non-empty bin of short and medium rows, every candidate timed
awk '/^# bin/ { h = 1; next } h && /^# +[0-9]+ / { rows++; if (NF != 11) bad = 1 } END { exit !(rows >= 2 && !bad) }' "$p"
ok $? "the section's table times the device's own methods and heap, esc, hash, rmerge and hash2 in each bin"
grep -q "^# tuned .*: squares of poisson2d5:60 random:3000,9, 3 runs each" "$p"
ok $? "the section names the matrices tuned on and the runs"
echo "rows 0 100000 esc" >>"$p" # the section's own lines, then this
run "$hsp" square --gen=poisson2d5:60 $on_gpu --stats=json
[ $rc -eq 0 ] && grep -q "\"profile\":\"$p\"" "$tmp/out" && grep -q '"esc"' "$tmp/out"
ok $? "a context reads the user's profile by default"
run "$hsp" square --gen=poisson2d5:60 $on_gpu --stats=json --profile=none
[ $rc -eq 0 ] && grep -q '"profile":""' "$tmp/out" && ! grep -q '"esc"' "$tmp/out"
ok $? "--profile=none: no profile"

# a second precision: its own section, the first kept; tuning again replaces a section
run "$hsp" tune --device=$dev --gen=band:2000,3 --precision=float --repeat=3 --quiet
[ $rc -eq 0 ] && grep -qx "device double $desc" "$p" && grep -qx "device float $desc" "$p"
ok $? "tuning float adds a section and keeps the double one"
run "$hsp" tune --device=$dev --gen=band:2000,3 --precision=float --repeat=3 --quiet
[ $rc -eq 0 ] && [ "$(grep -c "^device " "$p")" -eq 2 ] && [ "$(grep -c "^# tuned" "$p")" -eq 2 ]
ok $? "tuning float again replaces its section: still two"

# a profile of one's own: its methods reach the bins, C the same
printf '# mine\ndevice double %s\nrows 0 100000 esc   # every short and medium bin\n' "$desc" >"$tmp/esc"
"$hsp" square --gen=random:3000,9 $on_gpu --profile=none -o "$tmp/c0.mtx" >/dev/null 2>&1
run "$hsp" square --gen=random:3000,9 $on_gpu --profile="$tmp/esc" --stats=json -o "$tmp/c1.mtx"
methods=$(sed 's/.*"bin_methods":{\([^}]*\)}.*/\1/' "$tmp/out" | tr ',' '\n' | cut -d: -f2 | sort -u)
[ $rc -eq 0 ] && [ "$methods" = '"esc"' ] && grep -q "\"profile\":\"$tmp/esc\"" "$tmp/out"
ok $? "a profile's rows line gives every bin within it its method (esc), and stats name the profile"
close "$tmp/c0.mtx" "$tmp/c1.mtx"
ok $? "C by the profile's methods is C by the device's own (within 1e-12)"
run "$hsp" square --gen=random:3000,9 $on_gpu --profile="$tmp/esc" --stats
grep -q "^methods per bin from the profile $tmp/esc" "$tmp/out" && grep -q ":esc" "$tmp/out"
ok $? "--stats names the profile and each bin's method"
run "$hsp" square --gen=random:3000,9 $on_gpu --profile="$tmp/esc" --methods=hash,hash,auto --stats=json
[ $rc -eq 0 ] && ! grep -q '"esc"' "$tmp/out" && grep -q '"profile":""' "$tmp/out"
ok $? "--methods naming the groups overrides the profile"
run "$hsp" square --gen=random:3000,9 $on_gpu --profile="$tmp/esc" --precision=float --stats=json
[ $rc -eq 0 ] && ! grep -q '"esc"' "$tmp/out"
ok $? "a double section does not apply to float products"
printf 'device double %s\nrows 0 100000 hash\nlong dense\n' "$desc" >"$tmp/hash"
run "$hsp" square --gen=rmat:10,8 $on_gpu --profile="$tmp/hash" --deterministic --stats=json
[ $rc -eq 0 ] && ! grep -q '"hash"\|"dense"' "$tmp/out" && grep -q '"profile":""' "$tmp/out"
ok $? "a deterministic context passes over the profile's methods that add by atomics"
printf 'device double %s\nrows 1025 4096 esc\n' "$desc" >"$tmp/wide"
run "$hsp" square --gen=poisson2d5:60 $on_gpu --profile="$tmp/wide" --stats=json
[ $rc -eq 0 ] && grep -q '"profile":""' "$tmp/out" && ! grep -q '"esc"' "$tmp/out"
ok $? "stats name a profile only where the product took a method from it (none of its bins here)"
printf 'device double another device\nrows 0 100000 heap\n' >"$tmp/other"
run "$hsp" square --gen=random:3000,9 $on_gpu --profile="$tmp/other" --stats=json
[ $rc -eq 0 ] && grep -q '"profile":""' "$tmp/out"
ok $? "another device's section is passed over"

# bad profiles: an error naming the file and line, exit status 1, no product
bad() { # text, expected message, test name
    printf "$1" "$desc" >"$tmp/bad"
    run "$hsp" square --gen=poisson2d5:10 $on_gpu --profile="$tmp/bad" -o "$tmp/c.mtx"
    [ $rc -eq 1 ] && grep -q "$2" "$tmp/err" && [ ! -e "$tmp/c.mtx" ]
    ok $? "$3"
}
bad 'device double %s\nrows 5 x hash\n' "profile $tmp/bad, line 2: give rows LO HI METHOD" "a malformed rows line"
bad 'device double %s\nrows 9 5 hash\n' "line 2: give rows LO HI" "a rows line with LO above HI"
bad 'device double %s\nrows 1 5 fast\n' "line 2: give rows LO HI METHOD" "an unknown method"
bad '# %s\nrows 1 5 hash\n' "line 2: a rows or long line before the first device line" "rows before any device"
bad 'device triple %s\n' "line 1: give device float|double DESCRIPTION" "an unknown precision"
bad 'device double %s\nmedium hash\n' "line 2: give device, rows or long lines" "an unknown line"
bad 'device double %s\nrows 100 5000 heap\n' "method heap cannot run on the medium rows of device" \
    "a method the bins cannot run"
run "$hsp" square --gen=poisson2d5:10 $on_gpu --profile="$tmp/none-such"
[ $rc -eq 1 ] && grep -q "profile $tmp/none-such: No such file" "$tmp/err"
ok $? "a profile that does not exist is an error when named"
printf 'device double %s\nmedium hash\n' "$desc" >"$tmp/bad"
run "$hsp" tune --device=$dev --gen=poisson2d5:20 --repeat=1 --quiet --profile="$tmp/bad"
[ $rc -eq 1 ] && grep -q "line 2" "$tmp/err" && grep -q "medium hash" "$tmp/bad"
ok $? "tune leaves a profile that does not parse as it is"
run "$hsp" tune --device=$dev --gen=band:30,2 --quiet --profile="$tmp/t2" --repeat=0
[ $rc -eq 2 ] && grep -q "repeat" "$tmp/err" && [ ! -e "$tmp/t2" ]
ok $? "tune --repeat=0 is refused as usage"
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1.0\n' >"$tmp/rect.mtx"
run "$hsp" tune --device=$dev "$tmp/rect.mtx" --quiet --profile="$tmp/t2"
[ $rc -eq 1 ] && grep -q "squares its matrices: matrix 1 is 2 x 3" "$tmp/err" && [ ! -e "$tmp/t2" ]
ok $? "tune refuses a matrix that is not square"
echo "1..$n"
exit $fail
