"""The objects tf.saved_model.save writes (TF's _SaveableView): the trackables breadth first
from the root with their paths and children, then the tf.functions they hold; the node ids
of both the SavedObjectGraph and the checkpoint's TrackableObjectGraph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.lib.function.def_function import ConcreteFunction, Function
from tfcluster.lib.saved_model import object_graph
from tfcluster.ops.variables import Variable
from tfcluster.protos.trackable_object_graph_pb2 import TrackableObjectGraph

_VARIABLE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _escape(name: str) -> str:
    return name.replace(".", "..").replace("/", ".S")


class SignatureMap:
    """The root's `signatures` child: a trackable of its own (no variables)."""


class SaveableView:
    """Trackables breadth first from the root (the signature map last among the root's
    children), then function nodes: TF's node ids of both object graphs."""

    def __init__(
        self,
        root: Any,
        signatures: dict[str, ConcreteFunction],
        extra_children: Callable[[Any], list[tuple[str, Any]]] | None = None,
    ) -> None:
        self.nodes: list[Any] = [root]
        self.children: list[list[tuple[str, int]]] = [[]]
        self.paths: list[tuple[str, ...]] = [()]
        self.signature_map = SignatureMap()
        ids = {id(root): 0}
        queue = [0]
        while queue:
            i = queue.pop(0)
            kids = object_graph.children(self.nodes[i])
            if extra_children is not None:
                kids = [*kids, *extra_children(self.nodes[i])]
            if i == 0:
                kids = [*kids, ("signatures", self.signature_map)]
            for name, obj in kids:
                if id(obj) not in ids:
                    ids[id(obj)] = len(self.nodes)
                    self.nodes.append(obj)
                    self.children.append([])
                    self.paths.append((*self.paths[i], name))
                    if obj is not self.signature_map:
                        queue.append(ids[id(obj)])
                self.children[i].append((name, ids[id(obj)]))
        # Optimizer slots: nodes after the objects, keyed under their variable.
        self.slot_keys: dict[int, str] = {}
        self.slot_refs: dict[int, list[tuple[int, str, int]]] = {}
        for opt_id, opt in list(enumerate(self.nodes)):
            if not object_graph.is_optimizer(opt):
                continue
            found = [
                (var_id, slot_name, slot)
                for var_id, var in list(enumerate(self.nodes))
                if isinstance(var, Variable) and var_id not in self.slot_keys
                for slot_name, slot in object_graph.slots(opt, var)
            ]
            # In the order the optimizer made them (a Keras optimizer: by slot name first).
            made = [id(v) for v in opt.variables()]
            found.sort(key=lambda f: made.index(id(f[2])) if id(f[2]) in made else len(made))
            for var_id, slot_name, slot in found:
                slot_id = len(self.nodes)
                self.nodes.append(slot)
                self.children.append([])
                self.paths.append(())
                self.slot_keys[slot_id] = (
                    f"{self._object_key(var_id)}/.OPTIMIZER_SLOT/{self._object_key(opt_id)}/"
                    + _escape(slot_name)
                )
                self.slot_refs.setdefault(opt_id, []).append((var_id, slot_name, slot_id))
        self.num_trackables = len(self.nodes)
        self.signature_node = ids[id(self.signature_map)]
        # (node id, attribute name, tf.function, unbound form)
        self.functions: list[tuple[int, str, Function, Any]] = []
        for i in range(self.num_trackables):
            if self.nodes[i] is self.signature_map:
                continue
            for name, fn, unbound in object_graph.functions(self.nodes[i]):
                self.functions.append((i, name, fn, unbound))
        self.variables = [(i, obj) for i, obj in enumerate(self.nodes) if isinstance(obj, Variable)]
        self.signatures = signatures

    def _object_key(self, i: int) -> str:
        return self.slot_keys.get(i) or "/".join(_escape(p) for p in self.paths[i])

    def checkpoint_key(self, i: int) -> str:
        return self._object_key(i) + _VARIABLE_SUFFIX

    def checkpoint_graph(self) -> TrackableObjectGraph:
        graph = TrackableObjectGraph()
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=name)
            if isinstance(obj, Variable):
                node.attributes.add(
                    name="VARIABLE_VALUE",
                    full_name=obj.op.name,
                    checkpoint_key=self.checkpoint_key(i),
                )
            for var_id, slot_name, slot_id in self.slot_refs.get(i, []):
                node.slot_variables.add(
                    original_variable_node_id=var_id,
                    slot_name=slot_name,
                    slot_variable_node_id=slot_id,
                )
        return graph
