"""One task of a cluster, put together: the transport-free master and worker
(tfcluster.distributed) served over gRPC and direct streams (tfcluster.rpc), with Prometheus
metrics beside them. server.Server is tf.train.Server."""
