export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/r; nvidia-smi > $OUT/r/machine.txt 2>&1
t0=$(date +%s)
for c in restart resume; do cuobjdump -sass build-gpu/s11/gt_$c.cubin > $OUT/r/gt_$c.sass; done
python3 - $OUT/r <<'PY'
import sys,re
d=sys.argv[1]
for c in ('restart','resume'):
    s=open(f'{d}/gt_{c}.sass').read()
    for fn in re.split(r'\n\s*Function : ',s)[1:]:
        name=fn.split('\n',1)[0]
        if not name.startswith('__coloc_ptb__Z16gemm_bf16_kernelILb0ELb0ELb0E'): continue
        ops=re.findall(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)',fn)
        from collections import Counter
        c2=Counter(o.split('.')[0] for o in ops)
        print(c, name[:40], len(ops), {k:c2[k] for k in ('MATCH','WARPSYNC','BAR','BRX','BSSY','BSYNC','LDL','STL','MEMBAR','HMMA','LDGSTS','LDSM','YIELD','BRA')})
PY
timeout 80 python3 build-gpu/suite/betput --seconds 10 --be gpt_train_long --configs plain,ptb,ptb-resume build-gpu/suite $OUT/r/betput > $OUT/r/betput.txt 2>&1
echo "betput rc=$?"; grep "steps/s" $OUT/r/betput.txt
for v in default resume; do
  e=""; [ $v = resume ] && e="--colocc-env COLOC_RESUME=1"
  timeout 110 python3 build-gpu/suite/run --pin build-gpu/suite $OUT/r/cell-$v --latency resnet50_graph_b1 --be gpt_train_long --modes alone,colocc-ts-full --seconds 12 --loads 0.5 $e > $OUT/r/cell-$v.txt 2>&1
  echo "cell $v rc=$? at $(( $(date +%s) - t0 )) s"; head -30 $OUT/r/cell-$v/summary.md
done
timeout 200 python3 build-gpu/tr/run --resume --storm 200 build-gpu/tr $OUT/r/diff-resume > $OUT/r/diff-resume.txt 2>&1
echo "diff rc=$? at $(( $(date +%s) - t0 )) s"; grep "with failures\|FAIL" $OUT/r/diff-resume.txt | head
cd $OUT && tar czf r.tgz r && rm -rf r
