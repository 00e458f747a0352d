"""Reference values recorded from real TensorFlow, and what tests use to compare with them."""
