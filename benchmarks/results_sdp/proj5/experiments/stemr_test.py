import sys, numpy as np
sys.path.insert(0,"/tmp")
from stein_test import med
from scipy.linalg import lapack
for f in sys.argv[1:]:
    z=np.load(f)
    for key in z.files:
        M=z[key]; d=M.shape[0]
        c,dg,off,tau,info=lapack.dsytrd(M.T,lower=1,lwork=32*d)
        t_evd,(w,Z,_)=med(lambda: lapack.dstevd(dg,off,compute_v=1))
        neg=int(np.searchsorted(w,0.0)); pos=neg>d-neg
        il,iu=(neg+1,d) if pos else (1,neg)
        e=np.append(off,0.0)
        lw,liw,_=lapack.dstemr_lwork(dg,e,2,0.0,0.0,il,iu)
        t_mr,(m,wm,Zm,info)=med(lambda: lapack.dstemr(dg,e.copy(),2,0.0,0.0,il,iu,lwork=int(lw),liwork=int(liw)))
        t_ev,(m2,wm2,_,info2)=med(lambda: lapack.dstemr(dg,e.copy(),2,0.0,0.0,il,iu,compute_v=0,lwork=int(lw),liwork=int(liw)))
        t_rf,_=med(lambda: lapack.dsterf(dg,off))
        Zm=Zm[:,:m]; wm=wm[:m]
        ref=Z[:,neg:] if pos else Z[:,:neg]; lr=w[neg:] if pos else w[:neg]
        P1=(ref*lr)@ref.T; P2=(Zm*wm)@Zm.T
        orth=np.abs(Zm.T@Zm-np.eye(m)).max()
        print(f"{f} it {key} d {d} k {m} stevd {t_evd:.1f} stemr(k vec) {t_mr:.1f} stemr(vals) {t_ev:.1f} sterf {t_rf:.1f} info {info} orth {orth:.1e} |dP| {np.abs(P1-P2).max():.1e} |dlam| {np.abs(wm-lr).max():.1e}", flush=True)
