#!/usr/bin/env python3
# Compares the entry functions of two PTX files (before and after a change), ignoring debug
# lines and label numbering: SAME means ptxas gets the same input, so the same machine code.
# Used to show the plain Hopper rungs did not change when the pipeline probe was added:
#   nvcc ... -ptx matmul_hopper.cu -o before.ptx   (then after the change: after.ptx)
#   tools/ptx_same/ptx_entries_same.py before.ptx after.ptx
import re,sys
# Splits a PTX file into its entry functions: name -> body with the .loc/.file debug lines removed.
def entries(path):
    txt=open(path).read()
    out={}
    for m in re.finditer(r'\.entry (\S+)\((.*?)\n\}\n', txt, re.S):
        body=re.sub(r'\$L__BB\d+_', 'L_', '\n'.join(l for l in m.group(0).split('\n') if not l.strip().startswith(('.loc','.file','//','$L__tmp'))))
        out[m.group(1)]=body
    return out
a=entries(sys.argv[1]); b=entries(sys.argv[2])
for n in sorted(a):
    print(('SAME ' if b.get(n)==a[n] else 'DIFF ') + n, len(a[n]))
for n in sorted(set(b)-set(a)): print('NEW  '+n)
