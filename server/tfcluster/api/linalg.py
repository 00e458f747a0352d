"""tf.linalg"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.linalg.composed import (
    LinearOperatorAdjoint,
    LinearOperatorBlockDiag,
    LinearOperatorComposition,
    LinearOperatorInversion,
    LinearOperatorKronecker,
)
from tfcluster.lib.linalg.dispatch import (
    adjoint,
    cholesky,
    det,
    diag_part,
    inv,
    logdet,
    matmul,
    solve,
    trace,
)
from tfcluster.lib.linalg.identity import (
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from tfcluster.lib.linalg.linear_operator import LinearOperator
from tfcluster.lib.linalg.matrices import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
)
from tfcluster.lib.linalg.special import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
    LinearOperatorHouseholder,
    LinearOperatorLowRankUpdate,
    LinearOperatorToeplitz,
)
from tfcluster.ops.clip_ops import global_norm
from tfcluster.ops.linalg_ops import (
    band_part,
    cholesky_solve,
    cross,
    eigh,
    eigvalsh,
    einsum,
    expm,
    eye,
    lstsq,
    lu,
    matrix_rank,
    matrix_transpose,
    matvec,
    norm,
    normalize,
    pinv,
    qr,
    svd,
    tensor_diag,
    tensor_diag_part,
    tensordot,
    triangular_solve,
)
from tfcluster.ops.linalg_ops import (
    log_matrix_determinant as slogdet,
)
from tfcluster.ops.linalg_ops import (
    matrix_diag as diag,
)
from tfcluster.ops.linalg_ops import (
    matrix_set_diag as set_diag,
)
from tfcluster.ops.linalg_ops import (
    matrix_transpose as transpose,
)
from tfcluster.ops.matrix_function_ops import logm, sqrtm
from tfcluster.ops.nn_ops import l2_normalize
from tfcluster.ops.tridiagonal_ops import tridiagonal_matmul, tridiagonal_solve

__getattr__ = _unimplemented.module_getattr("linalg")
