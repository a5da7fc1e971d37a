import ast
import json
import os
import sys
import time

sys.path.insert(0,'benchmarks')
from moment_projection import make_input

from sosproj.sdp.backends.admm import AdmmBackend as A
from sosproj.sdp.backends.lowrank import LowrankBackend as L
from sosproj.sdp.compile import compile_projection

g,n,sp=sys.argv[1],int(sys.argv[2]),sys.argv[3]
nm,o=(sp.split(':',1)+['{}'])[:2]
R,_,Y=make_input('unit_ball',n,g)
p=compile_projection(R,3,Y,solver='admm')
c,t=time.process_time(),time.perf_counter()
s=(A if nm=='admm' else L)(p,tol=1e-6,time_limit=float(os.environ.get('TL','500')),**ast.literal_eval(o)).solve()
r=p.residuals(s.x,s.y,s.s)
print(json.dumps(dict(g=g,n=n,spec=sp,status=s.status,it=s.iterations,cpu=round(time.process_time()-c,2),wall=round(time.perf_counter()-t,2),res=[r['primal'],r['dual'],r['gap']],obj=float(.5*s.x@(p.P@s.x)+p.q@s.x+p.offset),load=os.getloadavg()[0])),flush=True)
