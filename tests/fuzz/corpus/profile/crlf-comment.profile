looprace-profile 1
# a comment ending in carriage returns
0123456789abcdef a.c:1:1 f 0/1 4
