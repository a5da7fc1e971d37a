import time, numpy as np
from scipy.linalg import lapack
def med(f,r=3):
    ts=[]
    for _ in range(r):
        t=time.process_time(); out=f(); ts.append(time.process_time()-t)
    return 1e3*np.median(ts), out
def test(dg, off, label):
    d=dg.size
    t_evd,(w,Z,_) = med(lambda: lapack.dstevd(dg,off,compute_v=1))
    neg=int(np.searchsorted(w,0.0)); k=min(neg,d-neg); pos = neg > d-neg
    t_terf,(vals,_) = med(lambda: lapack.dsterf(dg,off))
    if pos:
        rng=(0.0, np.inf); vl, vu = 0.0, 1e300
    else:
        vl, vu = -1e300, -1e-300
    t_bz,(m,wb,ib,isp,info) = med(lambda: lapack.dstebz(dg,off,1,vl,vu,1,1,0.0,'B'))
    t_st,(Zs,info2) = med(lambda: lapack.dstein(dg,off,wb[:m],ib,isp))
    Zs=Zs[:, :m]
    T=np.diag(dg)+np.diag(off,1)+np.diag(off,-1)
    res=np.abs(T@Zs - Zs*wb[:m]).max(); orth=np.abs(Zs.T@Zs-np.eye(m)).max()
    ref = Z[:, neg:] if pos else Z[:, :neg]
    lamref = w[neg:] if pos else w[:neg]
    P1=(ref*lamref)@ref.T; P2=(Zs*wb[:m])@Zs.T
    print(f"{label} d {d} k {k} m {m} stevd {t_evd:.1f} sterf {t_terf:.1f} stebz {t_bz:.1f} stein {t_st:.1f} info {info} {info2} res {res:.1e} orth {orth:.1e} |dP| {np.abs(P1-P2).max():.1e} |lam| {np.abs(wb[:m]-lamref).max():.1e}")
if __name__=="__main__":
    rng=np.random.default_rng(0)
    for d in (496,1326):
        A=rng.standard_normal((d,d)); A=A+A.T
        c,dg,off,tau,info=lapack.dsytrd(A.T,lower=1)
        test(dg,off,"random")

def test_sterf(dg, off, label):
    d = dg.size
    t_evd,(w,Z,_) = med(lambda: lapack.dstevd(dg,off,compute_v=1))
    neg=int(np.searchsorted(w,0.0)); pos = neg > d-neg
    t_terf,(vals,_) = med(lambda: lapack.dsterf(dg,off))
    vals = np.sort(vals); negs = int(np.searchsorted(vals, 0.0))
    sel = vals[negs:] if pos else vals[:negs]
    one = np.ones(d, dtype=np.int32); isp = np.zeros(d, dtype=np.int32); isp[0] = d
    t_st,(Zs,info2) = med(lambda: lapack.dstein(dg,off,sel,one,isp))
    m = sel.size; Zs = Zs[:, :m]
    ref = Z[:, neg:] if pos else Z[:, :neg]; lamref = w[neg:] if pos else w[:neg]
    P1=(ref*lamref)@ref.T; P2=(Zs*sel)@Zs.T
    orth=np.abs(Zs.T@Zs-np.eye(m)).max()
    print(f"{label} sterf path d {d} k {m} (ref {lamref.size}) stevd {t_evd:.1f} sterf {t_terf:.1f} stein {t_st:.1f} info {info2} orth {orth:.1e} |dP| {np.abs(P1-P2).max():.1e}", flush=True)
