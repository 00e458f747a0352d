"""The Keras engine: the base layer, networks (functional/Sequential models) and training."""
