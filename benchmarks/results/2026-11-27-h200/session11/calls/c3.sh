export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; cd build-gpu
cu=tr/kernels/16-long-blocks.cu
for v in t/ptx/16-long-blocks.coloc.ptx tr/ptx/16-long-blocks.coloc.ptx s11/varB.ptx s11/varC.ptx; do
  n=$(echo $v | tr / _); s=-S; case $v in t/*) s="";; esac
  ptxas -arch=sm_90 $v -o $OUT/r/$n.cubin && cuobjdump -sass $OUT/r/$n.cubin > $OUT/r/$n.sass; rm -f $OUT/r/$n.cubin
  for c in long_counted_600 long_tiles_256x256x8192; do
    timeout 60 ./tr/diffrun -w 55 -q -t $s -o $c $cu $v 2>&1 | grep "timing\|turnaround\|FAIL" | sed "s|^|$n |"
  done
done 2>&1 | tee $OUT/r/timings.txt
cd $OUT && tar czf r.tgz r && rm -rf r
