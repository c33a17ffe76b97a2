#!/bin/sh
# one H100 call: build, tests, benches resident (default, paper) and host to host (default, paper)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
top=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xzf $top/hspgemm-0.1.0.tar.gz && cd hspgemm-0.1.0 || exit 1
t0=$(date +%s)
(./configure -q && make -j16 -s && make -j16 -s tests/t_resident tests/t_multiply tests/t_opencl tests/t_rap) > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }
DEV=$(./hspgemm devices | awk '$2=="yes" && $1 ~ /^opencl/ {print $1; exit}')
echo "DEV=$DEV built in $(( $(date +%s) - t0 )) s"
export HSPGEMM_CACHE_DIR=/tmp/kc
for t in t_resident t_multiply t_opencl t_rap; do
  HSPGEMM_TEST_DEVICE=$DEV ./tests/$t > $OUT/$t.tap 2>&1; echo "$t rc=$? $(grep -c '^ok' $OUT/$t.tap) ok"; grep "^not ok" $OUT/$t.tap | head -3
done
echo "tests at $(( $(date +%s) - t0 )) s"
HSPGEMM_PROFILE=1 ./hspgemm square --gen=poisson3d27:101 --device=$DEV --resident --repeat=5 --stats > $OUT/profile.txt 2>&1
./hspgemm bench --device=$DEV --peers=cusparse --resident --repeat=5 --csv=$OUT/bench-res.csv > $OUT/bench-res.txt 2>&1
cat $OUT/bench-res.txt
./hspgemm bench --suite=paper --device=$DEV --peers=cusparse --resident --repeat=5 --csv=$OUT/bench-paper-res.csv > $OUT/bench-paper-res.txt 2>&1
echo "resident done at $(( $(date +%s) - t0 )) s"; cat $OUT/bench-paper-res.txt
./hspgemm bench --device=$DEV --peers=cusparse --repeat=5 --csv=$OUT/bench-h2h.csv > $OUT/bench-h2h.txt 2>&1
tail -4 $OUT/bench-h2h.txt
./hspgemm bench --suite=paper --device=$DEV --peers=cusparse --repeat=5 --csv=$OUT/bench-paper-h2h.csv > $OUT/bench-paper-h2h.txt 2>&1
echo "done at $(( $(date +%s) - t0 )) s"; tail -4 $OUT/bench-paper-h2h.txt
