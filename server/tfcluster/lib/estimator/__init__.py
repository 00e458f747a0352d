"""tf.estimator as TF 1.15 (tensorflow_estimator 1.15) builds it: Estimator, RunConfig,
train_and_evaluate, numpy input functions, export, and the canned linear/DNN models."""
