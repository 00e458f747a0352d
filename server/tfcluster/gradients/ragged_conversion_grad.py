"""TF 1.15 registers RaggedTensorToVariant as not differentiable (and no gradient for
RaggedTensorToTensor or RaggedTensorFromVariant: asking for one is a LookupError there too)."""

from tfcluster.gradients.registry import not_differentiable

not_differentiable("RaggedTensorToVariant")
