looprace-profile 1
# c
0123456789abcdef dir%20x/a.c:10:3 f%23g 1/2 4       winners=4,8 k%3D=v%3Dw speedup=1.1
