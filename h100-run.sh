#!/bin/sh
# one H100 call: build, test resident products, profile, bench default and paper suites resident
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
top=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xzf $top/hspgemm-0.1.0.tar.gz && cd hspgemm-0.1.0 || exit 1
t0=$(date +%s)
(./configure -q && make -j16 -s && make -j16 -s tests/t_resident tests/t_multiply) > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }
DEV=$(./hspgemm devices | awk '$2=="yes" && $1 ~ /^opencl/ {print $1; exit}')
echo "DEV=$DEV built in $(( $(date +%s) - t0 )) s"
export HSPGEMM_CACHE_DIR=/tmp/kc
HSPGEMM_TEST_DEVICE=$DEV ./tests/t_resident > $OUT/t_resident.tap 2>&1; echo "t_resident rc=$? $(grep -c '^ok' $OUT/t_resident.tap) ok"; grep "^not ok" $OUT/t_resident.tap | head -5
HSPGEMM_TEST_DEVICE=$DEV ./tests/t_multiply > $OUT/t_multiply.tap 2>&1; echo "t_multiply rc=$? $(grep -c '^ok' $OUT/t_multiply.tap) ok"
for g in poisson2d5:400 random:100000,8 rmat:16,8 poisson2d5:1024 poisson3d27:101; do
  echo "== $g"
  HSPGEMM_PROFILE=1 ./hspgemm square --gen=$g --device=$DEV --resident --repeat=5 --stats=json 2>&1
done > $OUT/profile.txt 2>&1
echo "profile done at $(( $(date +%s) - t0 )) s"
./hspgemm bench --device=$DEV --peers=cusparse --resident --repeat=5 --csv=$OUT/bench-res.csv > $OUT/bench-res.txt 2>&1
cat $OUT/bench-res.txt
./hspgemm bench --suite=paper --device=$DEV --peers=cusparse --resident --repeat=5 --csv=$OUT/bench-paper-res.csv > $OUT/bench-paper-res.txt 2>&1
echo "done at $(( $(date +%s) - t0 )) s"; cat $OUT/bench-paper-res.txt
