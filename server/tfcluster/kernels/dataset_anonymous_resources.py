"""Dataset ops over anonymous resources (TF 1.15's V2 ops for functions and eager): a seed
generator for ShuffleDatasetV2, a memory cache for CacheDatasetV2, and ChooseFastestDataset.

AnonymousRandomSeedGenerator / AnonymousMemoryCache make a new resource each run and return
its handle with a deleter: the resource lives while the deleter value does (or until
Delete* takes both), as in TF, where a graph that drops the deleter before the dataset op
reads the handle finds the resource gone (NotFoundError). A dataset made from the resource
keeps it.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_buffering import _Cache, _MemoryCache
from tfcluster.kernels.dataset_ordering import _input, _SeedSequence, _Shuffle
from tfcluster.kernels.registry import CPU_ONLY, kernel

_ids = itertools.count()


class AnonymousResource:
    """A resource no name finds: reached only through its handle value."""

    kind = ""
    type_name = ""

    def __init__(self) -> None:
        self.name = f"{self.kind}{next(_ids)}"
        self.deleted = False
        self._lock = threading.Lock()

    def where(self) -> str:
        return f"{self.kind}/{self.name}/{self.type_name}"

    def delete(self) -> None:
        with self._lock:
            if self.deleted:
                raise _gone(self)
            self.deleted = True

    def drop(self) -> None:
        with self._lock:
            self.deleted = True


def _gone(resource: AnonymousResource) -> errors.OpError:
    return errors.NotFoundError(None, None, f"Resource {resource.where()} does not exist.")


class SeedGenerator(AnonymousResource):
    kind = "RandomSeedGenerator"
    type_name = "N10tensorflow4data19RandomSeedGeneratorE"

    def __init__(self, seed: int, seed2: int) -> None:
        super().__init__()
        # Each iterator of a dataset using it draws new seeds from it.
        self.seeds = _SeedSequence(seed, seed2, True, shared=True)


class MemoryCache(AnonymousResource):
    kind = "MemoryCache"
    type_name = "N10tensorflow4data11MemoryCacheE"

    def __init__(self) -> None:
        super().__init__()
        self.cache = _MemoryCache()


class _Deleter:
    """The deleter variant: when the last reference to it goes, so does its resource."""

    __slots__ = ("__weakref__", "resource")

    def __init__(self, resource: AnonymousResource) -> None:
        self.resource = resource
        weakref.finalize(self, resource.drop)


def _scalar(value: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _live(value: Any, cls: type[AnonymousResource], node_name: str) -> Any:
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object:
        value = value[()]
    if not isinstance(value, cls):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: expected a {cls.kind} handle, got {type(value).__name__}"
        )
    if value.deleted:
        raise _gone(value)
    return value


def _check_deleter(value: Any, resource: AnonymousResource, node_name: str) -> None:
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object:
        value = value[()]
    if not isinstance(value, _Deleter):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: deleter is not a {resource.kind} deleter"
        )


@kernel("AnonymousRandomSeedGenerator", devices=CPU_ONLY)
def anonymous_random_seed_generator(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        seed, seed2 = base.scalar_int(ins[0], "seed"), base.scalar_int(ins[1], "seed2")
        gen = SeedGenerator(seed, seed2)
        return (gen, _scalar(_Deleter(gen)))

    return compute


@kernel("AnonymousMemoryCache", devices=CPU_ONLY)
def anonymous_memory_cache(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        cache = MemoryCache()
        return (cache, _scalar(_Deleter(cache)))

    return compute


def _deleter_kernel(cls: type[AnonymousResource]) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            value = ins[0][()] if isinstance(ins[0], np.ndarray) else ins[0]
            if not isinstance(value, cls):
                raise errors.InvalidArgumentError(
                    None, None, f"{node.name}: expected a {cls.kind} handle"
                )
            _check_deleter(ins[1], value, node.name)
            value.delete()
            return ()

        return compute

    return factory


kernel("DeleteRandomSeedGenerator", devices=CPU_ONLY)(_deleter_kernel(SeedGenerator))
kernel("DeleteMemoryCache", devices=CPU_ONLY)(_deleter_kernel(MemoryCache))


@kernel("ShuffleDatasetV2", devices=CPU_ONLY)
def shuffle_dataset_v2(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size = base.scalar_int(ins[1], "buffer_size")
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        gen = _live(ins[2], SeedGenerator, node.name)
        return (_Shuffle(specs, _input(ins[0], node.name), size, gen.seeds),)

    return compute


@kernel("CacheDatasetV2", devices=CPU_ONLY)
def cache_dataset_v2(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw = np.asarray(ins[1], dtype=object)
        name = raw[()] if raw.shape == () else b""
        filename = name.decode() if isinstance(name, bytes) else str(name)
        cache = _live(ins[2], MemoryCache, node.name)
        out = _Cache(specs, _input(ins[0], node.name), filename)
        out.memory = cache.cache  # the elements live in the resource, shared by its datasets
        return (out,)

    return compute


# ---- ChooseFastestDataset ------------------------------------------------------------------
class _ChooseFastest(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], inputs: list[base.Dataset], experiments: int
    ) -> None:
        super().__init__(specs)
        self.inputs, self.experiments = inputs, experiments

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ChooseFastestIterator([d.iterate(pipeline) for d in self.inputs], self.experiments)

    def cardinality(self) -> int:
        known = [n for n in (d.cardinality() for d in self.inputs) if n != base.UNKNOWN]
        return known[0] if known else base.UNKNOWN


class _ChooseFastestIterator(base.ElementIterator):
    """TF's experiment: the first `experiments` elements are pulled from every input (the
    first input's is returned) and timed; then only the fastest input goes on."""

    def __init__(self, its: list[base.ElementIterator], experiments: int) -> None:
        self._its = its
        self._left = experiments
        self._spent = [0.0] * len(its)

    def next(self) -> base.Element | None:
        if self._left <= 0 or len(self._its) == 1:
            return self._its[0].next()
        items = []
        for i, it in enumerate(self._its):
            began = time.perf_counter()
            items.append(it.next())
            self._spent[i] += time.perf_counter() - began
        self._left -= 1
        if self._left == 0:
            best = min(range(len(self._its)), key=self._spent.__getitem__)
            for i, it in enumerate(self._its):
                if i != best:
                    it.close()
            self._its = [self._its[best]]
        return items[0]

    def close(self) -> None:
        for it in self._its:
            it.close()


def choose_fastest_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    experiments = int(node.attrs["num_experiments"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        inputs = [_input(v, node.name, i) for i, v in enumerate(ins)]
        cardinality = inputs[0].cardinality()
        for i, d in enumerate(inputs[1:], 1):
            n = d.cardinality()
            if cardinality == base.UNKNOWN:
                cardinality = n
            elif n not in (cardinality, base.UNKNOWN):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "All inputs to ChooseFastestDataset must have compatible cardinalities. "
                    f"Input {i} has cardinality: {n}, while all prior inputs have "
                    f"cardinality: {cardinality}.",
                )
        return (_ChooseFastest(specs, inputs, experiments),)

    return compute


kernel("ChooseFastestDataset", devices=CPU_ONLY)(choose_fastest_dataset)
kernel("ExperimentalChooseFastestDataset", devices=CPU_ONLY)(choose_fastest_dataset)
