"""SavedModel, TF 1.x's export format: saved_model.pb (every MetaGraphDef, tagged) beside
variables/ (a V2 checkpoint) and assets/. What TensorFlow Serving loads."""
