"""tf.linalg's LinearOperator family, built from ops: matrices known by their structure (a
diagonal, a scaled identity, a triangle, a product, a Kronecker product, a circulant ...) that
multiply, solve and take determinants without forming the dense matrix where they can."""
