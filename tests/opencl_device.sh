# opencl_device.sh: sourced by the test scripts.  opencl_device MEMORY prints
# the name (opencl:N) of the first OpenCL device `hspgemm devices` lists with
# that memory ("system SVM", "buffer SVM"), or nothing.
opencl_device() {
    "${top_builddir:-.}/hspgemm" devices |
        awk -v want="$1" '$1 ~ /^opencl:/ { m = $6; if ($6 == "system" || $6 == "buffer") m = $6 " " $7;
                                             if (m == want) { print $1; exit } }'
}

# run_on MEMORY FLAGS PROGRAM: PROGRAM's tests on that device (with ",FLAGS"
# when FLAGS is not empty), or the TAP plan of a skip when there is none.
run_on() {
    dev=$(opencl_device "$1")
    if [ -z "$dev" ]; then
        echo "1..0 # SKIP no OpenCL device with $1"
        exit 0
    fi
    HSPGEMM_TEST_DEVICE="$dev${2:+,$2}" exec "${top_builddir:-.}/tests/$3"
}
