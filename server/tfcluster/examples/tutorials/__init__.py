"""TF 1.x's tutorial modules that programs import by path (tensorflow.examples.tutorials)."""
