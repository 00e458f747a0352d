# One image for the TFCluster operator and the task servers; the command selects:
#   tfcluster-server      a task (TF_CONFIG from the environment; the operator sets it)
#   tfcluster-operator    the kopf operator
#
#   docker build -t tfcluster:0.1.0 .
#   docker build -t tfcluster:0.1.0-cuda --build-arg VARIANT=cuda .   # + cupy, CUDA 12
ARG VARIANT=cpu
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm
ARG CUDA_IMAGE=nvidia/cuda:12.6.3-runtime-ubuntu24.04

# ---------------------------------------------------------------- build: the wheel
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN pip install "build==1.6.1"
WORKDIR /src
COPY pyproject.toml README.md ./
COPY protos ./protos
COPY server ./server
COPY operator ./operator
RUN python -m build --wheel --outdir /dist .

# ---------------------------------------------------------------- runtime bases
FROM ${PYTHON_IMAGE} AS base-cpu
ENV TFCLUSTER_EXTRAS=operator

FROM ${CUDA_IMAGE} AS base-cuda
# Ubuntu 24.04's Python 3.12 (the project needs >= 3.11). Ubuntu's archive keeps only
# the current patch release of each package, so pinning one would break later builds:
# the CUDA image tag above is the pin.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
ENV TFCLUSTER_EXTRAS=operator,gpu

# ---------------------------------------------------------------- the image
# hadolint ignore=DL3006
FROM base-${VARIANT} AS runtime
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/tfcluster/bin:$PATH \
    TFCLUSTER_DIRECT_PORT=2223
COPY docker/constraints.txt /tmp/constraints.txt
COPY --from=build /dist/ /tmp/dist/
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN python3 -m venv /opt/tfcluster \
    && wheel="$(ls /tmp/dist/tfcluster-*.whl)" \
    && /opt/tfcluster/bin/pip install --constraint /tmp/constraints.txt "${wheel}[${TFCLUSTER_EXTRAS}]" \
    && rm -rf /tmp/dist /tmp/constraints.txt \
    && useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin tfcluster
USER 10001:10001
WORKDIR /tmp
# gRPC (tasks), direct streams (tasks), task metrics, operator metrics, operator liveness.
EXPOSE 2222 2223 9090 8080 8081
CMD ["tfcluster-server"]
