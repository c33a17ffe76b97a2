#!/bin/sh
# fuzz/run.sh SRCDIR BUILDDIR SECONDS [TARGET ...]: build the libFuzzer targets
# (default: all of fuzz/*.c) with $FUZZ_CC (default clang) and
# -fsanitize=fuzzer,address,undefined over the library's own sources (the cpu
# device: no OpenCL or HSA), then run each for SECONDS on its corpus:
# BUILDDIR/corpus/TARGET, started from the seeds: fuzz/seeds/TARGET (with the
# inputs of every crash found so far), and for mm_read tests/data/*.mtx and
# the small matrices of ../shared/matrices; as many targets at once as CPUs.
# A crash leaves its input in BUILDDIR/crash-TARGET-*, and the script exits 1
# after naming it; else it prints each target's executions.
set -eu
src=$1 build=$2 seconds=$3
shift 3
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "fuzz/run.sh: no $cc (apt-get install clang-15)"; exit 1; }
targets=${*:-$(cd "$src/fuzz" && ls *.c | sed 's/\.c$//')}
flags="-g -std=c11 -pthread -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -I$src/src $(for d in "$src"/src/*/; do printf ' -I%s' "${d%/}"; done) -I$src/cli -I$src/tests"
ncpu=$(nproc 2>/dev/null || echo 1) running=0
# After starting a job in the background: wait for the jobs once as many run as CPUs.
throttle() {
    running=$((running + 1))
    if [ "$running" -ge "$ncpu" ]; then wait; running=0; fi
}
mkdir -p "$build/obj"

# The library, tests/ref.c and the CLI's option parsing, built again when
# any of their sources or headers is newer than the archive.
lib=$(cd "$src" && find src -name '*.c' ! -path 'src/device/opencl/*' | sort)
if [ -z "$(find "$build/libfuzzlib.a" 2>/dev/null)" ] \
   || [ -n "$(find "$src/src" "$src/cli" "$src/tests" -newer "$build/libfuzzlib.a" -name '*.[ch]')" ]; then
    object() { echo "$build/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"; } # source file $1's
    rm -f "$build"/obj/*.o "$build/libfuzzlib.a"
    for f in $lib tests/ref.c cli/options.c; do
        # SpMM's kernels (three widths of vector, two precisions, inlined) took clang 300 s at -O1
        # with the sanitizers on a 2-core AMD EPYC, 29 s at -O0; fuzz/spmm.c's products are small
        opt=$([ "$f" = src/spmm/spmm.c ] && echo -O0 || echo -O1)
        $cc $flags $opt -fsanitize=fuzzer-no-link -c "$src/$f" -o "$(object "$f")" &
        throttle # as many compilers at once as CPUs
    done
    wait
    for f in $lib tests/ref.c cli/options.c; do # a compiler that failed left no object: stop here
        [ -f "$(object "$f")" ] || { echo "fuzz/run.sh: $f did not compile"; exit 1; }
    done
    ar rcs "$build/libfuzzlib.a" "$build"/obj/*.o
fi

# Target $1 linked, then run for SECONDS on its corpus: its line of the
# report (and a crash's summary) into BUILDDIR/TARGET.result.
run_target() {
    t=$1 result="$build/$1.result"
    $cc $flags -O1 -fsanitize=fuzzer "$src/fuzz/$t.c" "$build/libfuzzlib.a" -lm -o "$build/$t" \
        || { echo "$t: FAILED to link" >"$result"; return; }
    corpus="$build/corpus/$t"
    mkdir -p "$corpus"
    [ ! -d "$src/fuzz/seeds/$t" ] || cp "$src/fuzz/seeds/$t"/* "$corpus"/
    if [ "$t" = mm_read ]; then
        cp "$src"/tests/data/*.mtx "$corpus"/
        find "$src/../shared/matrices" -name '*.mtx' -size -20k -exec cp {} "$corpus"/ \; 2>/dev/null || true
    fi
    log="$build/$t.log"
    if "$build/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=4096 \
        -artifact_prefix="$build/crash-$t-" "$corpus" >"$log" 2>&1; then
        echo "$t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1), no crash" >"$result"
    else
        { echo "$t: FAILED; the input: $(ls "$build"/crash-"$t"-* 2>/dev/null | head -1)"
          grep -E 'fuzz:|ERROR|SUMMARY' "$log" | head -5; } >"$result"
    fi
}

# The targets as many at once as CPUs (each fuzzer runs on one), their
# reports then in order.
for t in $targets; do
    rm -f "$build/$t.result"
    run_target "$t" &
    throttle
done
wait
status=0
for t in $targets; do
    cat "$build/$t.result" 2>/dev/null || echo "$t: FAILED: no report"
    grep -q ', no crash$' "$build/$t.result" 2>/dev/null || status=1
done
exit $status
