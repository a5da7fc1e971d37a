cat>/tmp/v.py<<'E'
import sys,time,json,numpy as np
import sosproj.sdp.backends.rankone_newton as rn
from sosproj.poly import MomentRelaxation as M,unit_ball as U
from sosproj.sdp import compile_support as C
from sosproj.sdp.lowrank_support import support_route as S
from sosproj.sdp.solve import ConicSolver as CS
o=json.loads(sys.argv[1]);L=float(sys.argv[2]);n=int(sys.argv[3]);ck=o.pop("_c",{});B=rn.NegativeEigenpairs;T=[0];E=[];st=[0];mk=[0]
class N(B):
 def __init__(s,*a,**k):
  if (k.get("cap") or 0)>1:k.update(ck)
  B.__init__(s,*a,**k);s.g=mk[0]==0 or k.get("cap")==1;mk[0]+=1
 def uncapped(s):
  x=B.uncapped(s);x.__class__=N;x.g=False;return x
 def __call__(s,A,r):
  if not s.g:st[0]+=1
  e=s.exact_calls;l,V=B.__call__(s,A,r)
  if s.g:E.append((st[0],round(time.time()-T[0]),round(-float(l[0]) if l.size else 0,4)))
  elif s.exact_calls>e:E.append((st[0],round(time.time()-T[0]),"x"))
  return l,V
rn.NegativeEigenpairs=N
R=M(U(n),4);W=np.random.default_rng([2026,n]).standard_normal((n,n,n));p=C(R,3,W);_,q=S(R,"rankone_newton",1e-6,3);q.update(o)
T[0]=time.time();c=time.process_time()
r=CS(p,"rankone_newton",tol=1e-6,time_limit=L,**q).solve(on_fail="return");i=r.info
print(sys.argv[1],"tb",q["trace_bound"],r.status,round(time.time()-T[0]),round(time.process_time()-c),*[i.get(k) for k in("candidate","dr_iterations","dr_capped_iterations","dr_status","newton_steps","cert_relative_gap")],E,flush=True)
E
export PYTHONPATH=$PWD OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=17179869184
nproc;uptime;git log --oneline -1;ls benchmarks/results_support|tail -3
i=0;for v in '{}' '{"_c":{"degree":8}}' '{"_c":{"resync":10}}' '{"device":"cuda"}' '{"dr_cap_gap":0.6}' '{"dr_cap":null}' '{"dr_cap":36}' '{"dr_cap":150}';do i=$((i+1));python3 /tmp/v.py "$v" 330 100 >$OUT/v$i.txt 2>&1 & done;wait;uptime;cat $OUT/v*.txt
