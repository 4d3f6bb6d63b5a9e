looprace-profile 1
# looprace: 0.1.0   gcc: gcc (Debian 12.2.0-14+deb12u1) 12.2.0   cpu: AMD EPYC   date: 2026-11-24T13:09:27Z
# program: make -s -C 'examples/demo' CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR"
# run: $LOOPRACE_OUTDIR/demo
# plan: race(alpha_lt=0.02,alpha_eq=0.05,eps=0.005,cap=200)
# id               location          function    pos  factor  evidence
e160d6e6ac3a60f1 demo.c:48:23      fir_filter  1/2  0       winners=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 samples=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2 speedup=1.000 verdict=baseline
63b70bde65316669 demo.c:60:21      sum_of_products 0/1  16      winners=16 samples=39 speedup=1.208 ci=1.188,1.227 verdict=faster
394cb6031281c0be demo.c:75:33      reverse_words 1/2  7       winners=5,7,8,9,10,11,12,13,14,15,16 samples=4,4,4,4,4,4,4,4,4,4,4 speedup=1.053 ci=1.045,1.061 verdict=faster
