"""tf.Session and tf.InteractiveSession: the client side of a master, local or over gRPC."""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tfcluster.client import context_config, trace_profiler
from tfcluster.client import fetches as fetch_lib
from tfcluster.client.master_client import MasterClient, master_for_target
from tfcluster.client.partial_run import PartialRuns
from tfcluster.distributed import placement_log
from tfcluster.framework import dtypes, error_interpolation, errors, tensor_shape
from tfcluster.framework.default_session import pop_default_session, push_default_session
from tfcluster.framework.graph import Graph, Operation, Tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import session_ops
from tfcluster.protos import config_pb2
from tfcluster.runtime import allocator, serving_state
from tfcluster.runtime.graph_ir import Node, node_from_operation


class _DeviceAttributes:
    def __init__(self, name: str, device_type: str, memory_limit: int, incarnation: int) -> None:
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit
        self.incarnation = incarnation

    def __repr__(self) -> str:
        return f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes})"


class BaseSession:
    def __init__(
        self,
        target: str = "",
        graph: Graph | None = None,
        config: config_pb2.ConfigProto | None = None,
    ) -> None:
        if graph is not None and not isinstance(graph, Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph).__name__}")
        if config is not None and not isinstance(config, config_pb2.ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config).__name__}")
        if not isinstance(target, str):
            raise TypeError(f"target must be a string, but got {type(target).__name__}")
        if target and config is not None and config.rpc_options.compression_algorithm:
            raise errors.UnimplementedError(
                None,
                None,
                "ConfigProto.rpc_options.compression_algorithm="
                f"{config.rpc_options.compression_algorithm!r} is not supported: tfcluster "
                "sends tensors uncompressed (leave it empty)",
            )
        if config is None:
            # As TF 1.15 takes its context's config: tf.config's threads, soft placement...
            config = context_config.default_session_config()
        allocator.tune()  # steps reuse freed tensor memory (see runtime/allocator.py)
        self._graph = graph if graph is not None else get_default_graph()
        self._target = target
        self._config = config
        self._master: MasterClient = master_for_target(target, config)
        if not target and config is not None and config.log_device_placement:
            # As TF 1.15's DirectSession; a grpc:// session's client prints nothing.
            placement_log.print_local_device_mapping(config.device_count)
        self._lock = threading.Lock()
        self._handle: str | None = None
        self._sent_ops = 0
        self._sent_version = -1
        # The newest op this session's master has (by creation id), and how many of the
        # graph's op changes it has looked at.
        self._last_sent_id = 0
        self._seen_mutations = 0
        self._closed = False
        self._default_ctx: Any = None
        self._dead_handles: list[str] = []
        self._dead_lock = threading.Lock()
        # Fetch structures seen lately (flat lists of tensors and ops, as training loops
        # pass every step), so a step does not flatten the same structure again.
        self._handlers: dict[Any, fetch_lib.FetchHandler] = {}
        self._partial_runs = PartialRuns()

    # ---- properties ------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> Any:
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    # ---- graph sync ------------------------------------------------------------------
    def _new_nodes(self) -> tuple[list[Node], dict[str, dtypes.DType]]:
        ops = self._graph._nodes_in_order[self._sent_ops :]
        nodes = [node_from_operation(op) for op in ops]
        out_dtypes = {t.name: t.dtype.base_dtype for op in ops for t in op.outputs}
        return nodes, out_dtypes

    def _sync_graph(self) -> str:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        graph = self._graph
        if self._handle is not None and self._sent_version == graph._version:
            return self._handle
        with self._lock:
            self._restart_if_sent_ops_changed()
            count = len(graph._nodes_in_order)
            version = graph._version
            nodes, out_dtypes = self._new_nodes()
            if self._handle is None:
                self._handle = self._master.create_session(nodes, out_dtypes, self._config)
            elif nodes:
                self._master.extend_session(self._handle, nodes, out_dtypes)
            self._sent_ops = count
            if count:
                self._last_sent_id = graph._nodes_in_order[count - 1]._id
            self._sent_version = version
            return self._handle

    def _restart_if_sent_ops_changed(self) -> None:
        """A master cannot change a node it has: when an op it has was changed (a while loop
        whose gradient was built after a run keeps more values), the session starts a new
        master session with the whole graph. Variables, queues and other resources live on
        the tasks and stay."""
        mutations = self._graph._mutations
        changed = mutations[self._seen_mutations :]
        self._seen_mutations = len(mutations)
        if self._handle is None or not any(op._id <= self._last_sent_id for op in changed):
            return
        old, self._handle = self._handle, None
        self._sent_ops = 0
        with contextlib.suppress(errors.OpError):
            self._master.close_session(old)

    # ---- run -------------------------------------------------------------------------
    def run(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None = None,
        options: config_pb2.RunOptions | None = None,
        run_metadata: config_pb2.RunMetadata | None = None,
    ) -> Any:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if not self._graph._nodes_in_order:
            raise RuntimeError(
                "The Session graph is empty.  Add operations to the graph before calling run()."
            )
        self._delete_dead_handles()
        handler = self._fetch_handler(fetches)
        feeds = self._process_feeds(feed_dict)  # checked first, as TF checks them
        if self._graph.__dict__.get("_unfetchable_ops"):
            _assert_fetchable(self._graph, handler)
        handle = self._sync_graph()
        try:
            values, stats = self._run_step(handle, feeds, handler, options)
        except errors.OpError as e:
            serving_state.wait_out_exit_in_daemon_thread()
            raise error_interpolation.with_graph_context(e, self._graph)  # noqa: B904 (TF's chain)
        if run_metadata is not None:
            _fill_run_metadata(run_metadata, stats)
        return handler.build(list(values), feeds, self)

    def _run_step(
        self,
        handle: Any,
        feeds: Any,
        handler: fetch_lib.FetchHandler,
        options: config_pb2.RunOptions | None,
    ) -> tuple[Any, Any]:
        """The step's values and stats; while a profiler records (trace_profiler), the step
        is traced for it (the caller gets stats only when its own options trace)."""
        names, targets = handler.tensor_names, handler.target_names
        if not trace_profiler.active():
            return self._master.run_step(handle, feeds, names, targets, options)
        start = time.time_ns()
        values, stats = self._master.run_step(
            handle, feeds, names, targets, trace_profiler.traced(options)
        )
        trace_profiler.record(start, time.time_ns(), stats)
        asked = options is not None and options.trace_level > config_pb2.RunOptions.NO_TRACE
        return values, stats if asked else None

    # ---- partial runs ----------------------------------------------------------------
    def partial_run_setup(self, fetches: Any, feeds: Any = None) -> str:
        """Declares the feeds and fetches of a step that partial_run feeds and fetches in
        several calls; returns its handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if not self._graph._nodes_in_order:
            raise RuntimeError(
                "The Session graph is empty.  Add operations to the graph before calling run()."
            )
        feed_list: list[Tensor] = []
        for feed in (
            feeds if isinstance(feeds, (list, tuple)) else ([] if feeds is None else [feeds])
        ):
            for sub in fetch_lib.feed_components(feed):
                try:
                    t = self._graph.as_graph_element(sub, allow_tensor=True, allow_operation=False)
                except (TypeError, ValueError, KeyError) as e:
                    message = e.args[0] if e.args else str(e)
                    raise type(e)(f"Cannot interpret feed_list key as Tensor: {message}") from None
                assert isinstance(t, Tensor)
                feed_list.append(t)
        handler = fetch_lib.FetchHandler(self._graph, fetches)
        graph = self._graph
        fetch_list = [graph.get_tensor_by_name(n) for n in handler.tensor_names]
        target_list = [graph.get_operation_by_name(n) for n in handler.target_names]
        step = self._partial_step()
        return self._partial_runs.setup(self._graph, feed_list, fetch_list, target_list, step)

    def _partial_step(self) -> Callable[[dict[str, Any], list[str], list[str]], list[Any]]:
        session_handle = self._sync_graph()

        def step(feeds: dict[str, Any], names: list[str], targets: list[str]) -> list[Any]:
            try:
                values, _ = self._master.run_step(session_handle, feeds, names, targets, None)
            except errors.OpError as e:
                raise error_interpolation.with_graph_context(e, self._graph)  # noqa: B904
            return list(values)

        return step

    def partial_run(
        self, handle: str, fetches: Any, feed_dict: Mapping[Any, Any] | None = None
    ) -> Any:
        """Feeds some of the partial run's declared feeds and fetches some of its fetches."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        handler = fetch_lib.FetchHandler(self._graph, fetches)
        feeds = self._process_feeds(feed_dict)
        if handler.target_names:
            raise RuntimeError("partial_run() requires empty target_list.")
        if not handler.tensor_names and not feeds:
            return handler.build([], feeds, self)
        step = self._partial_step()
        values = self._partial_runs.run(handle, feeds, handler.tensor_names, step)
        return handler.build(values, feeds, self)

    def _fetch_handler(self, fetches: Any) -> fetch_lib.FetchHandler:
        key: Any = None
        if type(fetches) is list or type(fetches) is tuple:
            if all(type(f) is Tensor or type(f) is Operation for f in fetches):
                key = (type(fetches), *fetches)  # tensors and ops hash and compare by identity
        elif type(fetches) is Tensor or type(fetches) is Operation:
            key = fetches
        if key is None:
            return fetch_lib.FetchHandler(self._graph, fetches)
        handler = self._handlers.get(key)
        if handler is None:
            handler = fetch_lib.FetchHandler(self._graph, fetches)
            if len(self._handlers) >= _HANDLERS_KEPT:
                self._handlers.clear()
            self._handlers[key] = handler
        return handler

    def _process_feeds(self, feed_dict: Mapping[Any, Any] | None) -> dict[str, Any]:
        feeds: dict[str, Any] = {}
        if not feed_dict:
            return feeds
        graph = self._graph
        for key, value in feed_dict.items():
            if (
                type(key) is Tensor
                and key.graph is graph
                and not isinstance(value, session_ops.TensorHandle)
            ):
                feeds[key.name] = _feed_value(key, value)  # the common case, checked as below
                continue
            for tensor, sub_value in fetch_lib.expand_feed(self._graph, key, value):
                if isinstance(sub_value, session_ops.TensorHandle):
                    # A TensorHandle feeds the tensor the session keeps for it.
                    sub_value = sub_value.eval()
                feeds[tensor.name] = _feed_value(tensor, sub_value)
        return feeds

    # ---- tensors kept by handle ------------------------------------------------------
    # TensorHandles gone out of use are deleted in one run once this many have gathered.
    _DEAD_HANDLES_THRESHOLD = 10

    def _register_dead_handle(self, handle: str) -> None:
        """Called when a TensorHandle is collected: only noted here (the collector may run
        inside this session's own run), deleted by the next run()."""
        with self._dead_lock:
            self._dead_handles.append(handle)

    def _delete_dead_handles(self) -> None:
        if len(self._dead_handles) < self._DEAD_HANDLES_THRESHOLD or self._closed:
            return
        with self._dead_lock:
            dead, self._dead_handles = self._dead_handles, []
        feeds, fetches = session_ops.handle_deleters(self._graph, dead)
        try:
            self.run(fetches, feed_dict=feeds)
        except errors.OpError:
            # One was deleted already (tf.delete_session_tensor): delete the others one by one.
            for handle in dead:
                feeds, fetches = session_ops.handle_deleters(self._graph, [handle])
                with contextlib.suppress(errors.OpError):
                    self.run(fetches, feed_dict=feeds)

    def make_callable(
        self, fetches: Any, feed_list: Sequence[Any] | None = None, accept_options: bool = False
    ) -> Callable[..., Any]:
        """A function that runs `fetches`, fed `feed_list` by position: the fetch structure
        is worked out once, not on every call (what QueueRunner threads run in a loop)."""
        feed_tensors: list[Tensor] = []
        for f in feed_list or []:
            t = self._graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
            assert isinstance(t, Tensor)
            feed_tensors.append(t)
        handler = fetch_lib.FetchHandler(self._graph, fetches)
        # TF 1.15 runs a callable given a feed_list through run(), whose errors name the
        # node's definition; one without goes straight to the C session: its errors keep the
        # runtime's bare "[[{{node X}}]]" (what a QueueRunner's thread reports).
        with_context = feed_list is not None

        def call(*args: Any, **kwargs: Any) -> Any:
            if len(args) != len(feed_tensors):
                raise TypeError(f"expected {len(feed_tensors)} feed values, got {len(args)}")
            options = kwargs.pop("options", None) if accept_options else None
            run_metadata = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
            feeds = {t.name: _feed_value(t, v) for t, v in zip(feed_tensors, args)}
            handle = self._sync_graph()
            try:
                values, stats = self._run_step(handle, feeds, handler, options)
            except errors.OpError as e:
                serving_state.wait_out_exit_in_daemon_thread()
                if not with_context:
                    raise
                raise error_interpolation.with_graph_context(e, self._graph)  # noqa: B904
            if run_metadata is not None:
                _fill_run_metadata(run_metadata, stats)
            return handler.build(list(values), feeds, self)

        return call

    # ---- devices, lifecycle ----------------------------------------------------------
    def list_devices(self) -> list[_DeviceAttributes]:
        return [
            _DeviceAttributes(d.name, d.device_type, d.memory_limit, d.incarnation)
            for d in self._master.list_devices()
        ]

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(errors.OpError):
                self._master.close_session(handle)
        self._master.release()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def as_default(self) -> Any:
        """Makes this the default session only, as TF's: ops built inside still go to the
        default graph, not necessarily this session's (`with sess:` enters both)."""
        return _DefaultSessionContext(self)

    def __enter__(self) -> BaseSession:
        if self._default_ctx is not None:
            raise RuntimeError(
                "Session context managers are not re-entrant. Use `Session.as_default()` if "
                "you want to enter a session multiple times."
            )
        graph_ctx = self._graph.as_default()
        graph_ctx.__enter__()
        self._default_ctx = (graph_ctx, self.as_default())
        self._default_ctx[1].__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._default_ctx is not None:
            graph_ctx, session_ctx = self._default_ctx
            self._default_ctx = None
            session_ctx.__exit__(exc_type, exc, tb)
            graph_ctx.__exit__(exc_type, exc, tb)
        self.close()


class _DefaultSessionContext:
    def __init__(self, session: BaseSession) -> None:
        self._session = session

    def __enter__(self) -> BaseSession:
        push_default_session(self._session)
        return self._session

    def __exit__(self, *exc: Any) -> None:
        pop_default_session(self._session)


class Session(BaseSession):
    """A session on a local engine ('' target) or a task's master ('grpc://host:port')."""

    @staticmethod
    def reset(target: str, containers: Sequence[str] | None = None, config: Any = None) -> None:
        master = master_for_target(target, config)
        try:
            master.reset(list(containers or []))
        finally:
            master.release()


class InteractiveSession(BaseSession):
    """A session that installs itself as the default, for shells and notebooks."""

    # Interactive sessions open (not closed yet) in the process: opening another warns.
    _count_lock = threading.Lock()
    _active_session_count = 0

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        if not config:
            # TF 1.15's defaults for interactive use (not the context's config).
            config = config_pb2.ConfigProto(gpu_options=config_pb2.GPUOptions(allow_growth=True))
        # As TF's: always placing pruned graphs (so grappler leaves them alone), set on the
        # caller's own config.
        config.graph_options.place_pruned_graph = True
        super().__init__(target, graph, config)
        with InteractiveSession._count_lock:
            if InteractiveSession._active_session_count > 0:
                warnings.warn(
                    "An interactive session is already active. This can cause out-of-memory "
                    "errors in some cases. You must explicitly call "
                    "`InteractiveSession.close()` to release resources held by the other "
                    "session(s).",
                    stacklevel=1,
                )
            InteractiveSession._active_session_count += 1
        self._explicitly_closed = False
        self._ctx = self.as_default()
        self._ctx.__enter__()
        # As TF's: the session's graph becomes the default graph only when one was given.
        self._graph_ctx: Any = None
        if graph is not None:
            self._graph_ctx = graph.as_default()
            self._graph_ctx.__enter__()

    def close(self) -> None:
        with InteractiveSession._count_lock:
            if not getattr(self, "_explicitly_closed", True):
                InteractiveSession._active_session_count -= 1
                self._explicitly_closed = True
        graph_ctx = getattr(self, "_graph_ctx", None)
        if graph_ctx is not None:
            self._graph_ctx = None
            with contextlib.suppress(Exception):
                graph_ctx.__exit__(None, None, None)
        ctx = getattr(self, "_ctx", None)
        if ctx is not None:
            self._ctx = None
            with contextlib.suppress(Exception):
                ctx.__exit__(None, None, None)
        super().close()


class InaccessibleTensorError(ValueError):
    """A fetch of an op its graph marked not fetchable (TF's errors_impl class)."""


def _assert_fetchable(graph: Any, handler: fetch_lib.FetchHandler) -> None:
    for name in [*handler.tensor_names, *handler.target_names]:
        op = graph.get_operation_by_name(name.split(":")[0])
        if not graph.is_fetchable(op):
            raise InaccessibleTensorError(
                f"Operation {op.name!r} has been marked as not fetchable. Typically this happens "
                "when it is defined in another function or code block. Use return values,"
                "explicit Python locals or TensorFlow collections to access it."
            )


def _feed_value(tensor: Tensor, value: Any) -> Any:
    if not tensor.graph.is_feedable(tensor):
        raise ValueError(f"Tensor {tensor} may not be fed.")
    if isinstance(value, (Tensor, Operation)):
        raise TypeError(
            "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
            f"the tensor object was {value} which was passed to the feed with key {tensor}."
        )
    want = tensor.dtype.base_dtype
    if want is dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = [v.encode() if isinstance(v, str) else v for v in arr.reshape(-1)]
        if not all(isinstance(v, bytes) for v in flat):
            raise TypeError(f"Cannot feed a non-string value to string tensor {tensor.name}")
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        arr = out.reshape(arr.shape)
    else:
        np_dtype = np.dtype(want.as_numpy_dtype)
        src = np.asarray(value) if not isinstance(value, np.ndarray) else value
        if src.dtype.kind in ("U", "S", "O"):
            try:
                src = src.astype(np_dtype)
            except (ValueError, TypeError) as e:
                raise ValueError(
                    f"Cannot feed value {value!r} for Tensor '{tensor.name}' of dtype "
                    f"{want.name}: {e}"
                ) from None
        if (
            np_dtype.kind in "iub"
            and src.dtype.kind == "f"
            and src.size
            and not np.all(np.mod(src, 1) == 0)
        ):
            raise TypeError(
                f"Cannot feed non-integral values of dtype {src.dtype} to Tensor "
                f"'{tensor.name}' of dtype {want.name}"
            )
        arr = src if src.dtype == np_dtype else src.astype(np_dtype)
    shape: TensorShape = tensor.shape
    if not tensor_shape.fits(shape, arr.shape):
        raise ValueError(
            f"Cannot feed value of shape {arr.shape!r} for Tensor '{tensor.name}', which has "
            f"shape '{shape}'"
        )
    return arr


# Fetch structures a session keeps flattened (a training loop uses a few, over and over).
_HANDLERS_KEPT = 32


def _fill_run_metadata(run_metadata: Any, stats: Any) -> None:
    """TF's session parses the step's RunMetadata into the caller's (replacing what it held;
    empty without a trace), so any RunMetadata class of TF's wire format works, such as
    tensorboard's compat protos."""
    returned = config_pb2.RunMetadata()
    if stats is not None:
        returned.step_stats.CopyFrom(stats)
    run_metadata.ParseFromString(returned.SerializeToString())
