"""The SDP layer: compile projections and support functions over pseudo-moments into
one solver-neutral conic form and solve it with sosproj's ADMM, SCS, Clarabel, MOSEK
or cvxpy, every one behind the backend contract of :mod:`sosproj.sdp.backends.base`
and reading cones through :mod:`sosproj.sdp.cones`.

See ``docs/sdp.md`` for the mathematics (conic form, orbit-weighted least squares,
dual certificate) and the svec conventions of each backend.

>>> from sosproj.sdp import Cones, svec_dim
>>> svec_dim(3), Cones(zero=1, psd=(3,)).dim
(6, 7)
"""

from sosproj.sdp.backends import BACKENDS, backend_class, estimate_memory
from sosproj.sdp.compile import (
    compile_constraints,
    compile_least_squares,
    compile_linear,
    compile_projection,
    compile_support,
)
from sosproj.sdp.cones import (
    Cones,
    project_cone,
    project_dual_cone,
    smat,
    svec,
    svec_dim,
    svec_permutation,
)
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.least_squares import LeastSquaresProjector, feasible_norm_bound
from sosproj.sdp.solve import ConicSolver, SolveResult, solve

__all__ = ["ConicProblem", "Cones", "estimate_memory", "BACKENDS", "backend_class", "project_cone",
           "project_dual_cone", "smat", "svec", "svec_dim",
           "svec_permutation", "ConicSolver", "SolveResult", "solve", "compile_constraints",
           "compile_least_squares", "compile_linear", "compile_projection", "compile_support",
           "LeastSquaresProjector", "feasible_norm_bound"]
