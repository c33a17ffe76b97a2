# opencl_device.sh: sourced by the test scripts.  opencl_device MEMORY prints
# the name (opencl:N) of the first OpenCL device `hspgemm devices` lists with
# that memory ("system SVM", "buffer SVM"), or nothing.
opencl_device() {
    "${top_builddir:-.}/hspgemm" devices |
        awk -v want="$1" '$1 ~ /^opencl:/ { m = $6; if ($6 == "system" || $6 == "buffer") m = $6 " " $7;
                                             if (m == want) { print $1; exit } }'
}
