"""Sync a TFCluster: its children in line with its spec, then its status.

    parse the spec -> the children it wants -> a plan from the watched children
    -> dry-run every child whose manifest is new -> apply the plan -> prune -> status

One sync runs for every event that concerns a TFCluster (its own, any child's, the periodic
resync), so it is built to cost nothing when nothing changed: children are read from the
watches (``Children``), never listed; a child is applied only when it is missing, when its
manifest changed, or when someone changed a field the operator owns (drift, see drift.py);
the status is written only when it changed, and events only on transitions.

A spec the operator cannot run (``SpecError``) and children the API server refuses (the
server-side dry run answers 400/422: a bad pod template) end as phase Failed with the reason
and one warning event; nothing is created or changed until the spec changes. API trouble is
retried with a back-off, shown meanwhile as Degraded/ReconcileError.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

from . import builders, kueue
from .builders.meta import OwnerRef
from .builders.services import endpoint
from .children import Children, Key, kind_key
from .config import OperatorConfig
from .drift import differences, project, render
from .events import EventRecorder
from .kube import WORKLOAD_KIND, Kube, KubeError, now
from .metrics import OperatorMetrics
from .run_status import PHASE_FAILED, PHASE_RESTARTING, RunOutcome, decide_run, run_status, ttl_due
from .security import SecurityChildren
from .spec import SpecError, TFClusterSpec, parse_spec
from .status import (
    UNSCHEDULABLE,
    compute_status,
    condition,
    invalid_status,
    signatures,
    task_problems,
)

log = logging.getLogger(__name__)

RETRY_DELAY = 5.0
MAX_RETRY_DELAY = 60.0
# A status we wrote is trusted over the watched TFCluster's for this long (our own write's
# watch event may not have arrived yet).
WRITTEN_TRUST_SECONDS = 5.0
# A child applied this long ago and still not seen by the watch counts as missing.
UNSEEN_GRACE_SECONDS = 30.0
# How long a namespace found terminating stays so, and one found alive, before asking again.
TERMINATING_TTL = 30.0
ALIVE_TTL = 5.0


@dataclass(frozen=True)
class Applied:
    """What the operator last applied to a child, and the server's answer to it."""

    uid: str
    fingerprint: str
    baseline: Any  # drift.project(answer, manifest)
    at: float


@dataclass
class Action:
    manifest: dict[str, Any]
    live: dict[str, Any] | None
    why: str  # create, recreate, update, repair
    dry_run: bool
    drift: list[tuple[str, Any, Any]] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return kind_key(self.manifest)

    @property
    def name(self) -> str:
        return str(self.manifest["metadata"]["name"])


@dataclass
class Failure:
    message: str
    delay: float
    retry_at: float


@dataclass(frozen=True)
class SyncResult:
    status: dict[str, Any] | None
    retry_after: float | None = None


class Rejected(Exception):
    def __init__(self, action: Action, error: KubeError) -> None:
        super().__init__(
            f"the API server rejects {action.kind} {action.name} ({error.status}): {error.message}"
        )


class Abandoned(Exception):
    """The TFCluster or its namespace is going away: nothing to create, report or post."""


def fingerprint(manifest: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


class NamespaceStates:
    """Which namespaces are being deleted: asked of the API server only after a child was
    deleted (the first thing a namespace's deletion does to a TFCluster), remembered a while."""

    def __init__(self, kube: Kube, clock: Callable[[], float]) -> None:
        self.kube = kube
        self.clock = clock
        self._verdicts: dict[str, tuple[bool, float]] = {}

    def mark(self, namespace: str) -> None:
        self._verdicts[namespace] = (True, self.clock())

    def terminating(self, namespace: str, *, check: bool) -> bool:
        verdict = self._verdicts.get(namespace)
        age = self.clock() - verdict[1] if verdict else 0.0
        if verdict and verdict[0] and age < TERMINATING_TTL:
            return True
        if not check or (verdict and not verdict[0] and age < ALIVE_TTL):
            return False
        try:
            found = self.kube.namespace_terminating(namespace)
        except KubeError as err:
            log.warning("cannot tell whether namespace %s is terminating: %s", namespace, err)
            found = False
        self._verdicts[namespace] = (found, self.clock())
        return found


class Reconciler:
    """Syncs TFClusters; the caller runs one sync per TFCluster at a time (clusters in
    parallel) and hands each the TFCluster and its children as last watched."""

    def __init__(
        self,
        kube: Kube,
        config: OperatorConfig,
        metrics: OperatorMetrics,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kube = kube
        self.config = config
        self.metrics = metrics
        self.clock = clock
        self.namespaces = NamespaceStates(kube, clock)
        self.events = EventRecorder(
            kube, config.field_manager, on_namespace_terminating=self.namespaces.mark
        )
        self._applied: dict[Key, dict[tuple[str, str], Applied]] = {}
        self._deleted: dict[Key, set[tuple[str, str]]] = {}  # until re-created
        self._check_namespace: set[Key] = set()  # a child went: is its namespace going?
        self._rejected: dict[Key, tuple[str, SpecError]] = {}
        self._failures: dict[Key, Failure] = {}
        self._written: dict[Key, tuple[dict[str, Any], float]] = {}
        self._announced: dict[Key, dict[str, frozenset[tuple[str, str]]]] = {}
        self._lock = threading.Lock()  # for what the event loop writes (note_deleted)
        self.security = SecurityChildren(config)

    # ------------------------------------------------------------- entry points

    def note_deleted(self, key: Key, kind: str, name: str) -> None:
        """A child went away (seen by a watch): the next sync checks whether its namespace
        is being deleted, and re-creates a Service or StatefulSet the spec still wants."""
        with self._lock:
            self._check_namespace.add(key)
            if kind != "Pod":
                self._deleted.setdefault(key, set()).add((kind, name))

    def forget(self, key: Key, uid: str | None = None) -> None:
        """The TFCluster is gone."""
        self.metrics.forget(*key)
        self.security.forget(key)
        self._applied.pop(key, None)
        self._rejected.pop(key, None)
        self._failures.pop(key, None)
        self._written.pop(key, None)
        self._announced.pop(key, None)
        with self._lock:
            self._deleted.pop(key, None)
            self._check_namespace.discard(key)
        if uid:
            self.events.forget(key[0], uid)

    def sync(self, body: Mapping[str, Any], children: Children) -> SyncResult:
        started = time.perf_counter()
        try:
            return self._sync(body, children)
        finally:
            self.metrics.reconcile_duration.observe(time.perf_counter() - started)

    # ------------------------------------------------------------- the sync

    def _sync(self, body: Mapping[str, Any], children: Children) -> SyncResult:
        meta = body["metadata"]
        key: Key = (meta["namespace"], meta["name"])
        if meta.get("deletionTimestamp"):
            return SyncResult(None)
        with self._lock:
            deleted = set(self._deleted.get(key, ()))
            check = key in self._check_namespace
            self._check_namespace.discard(key)
        if self.namespaces.terminating(key[0], check=check):
            return SyncResult(None)  # nothing can be created there; its children are going
        try:
            spec = self._parse(body)
        except SpecError as err:
            self.metrics.reconciles.labels("invalid").inc()
            return SyncResult(self._write_failed(body, err))
        owner = OwnerRef(name=spec.name, uid=str(meta["uid"]))
        previous = self._previous(key, body)
        outcome = self._outcome(spec, children, previous)
        desired = self._desired(spec, owner, children, outcome)
        # spec.tls's Secrets and spec.networkPolicy's policy first: before the pods that
        # mount them (an ended run makes nothing again, as in _desired).
        secured = self.security.children(spec, owner, children)
        ended = outcome is not None and outcome.ended
        desired = [
            *(
                m
                for m in secured.manifests
                if not ended or children.get(kind_key(m), m["metadata"]["name"])
            ),
            *desired,
        ]
        wanted = fingerprint({"children": desired})
        rejected = self._rejected.get(key)
        if rejected is not None:
            if rejected[0] == wanted:
                return SyncResult(self._write_failed(body, rejected[1]))
            del self._rejected[key]

        if deleted:  # the spec may no longer want some of them
            names = {(kind_key(m), str(m["metadata"]["name"])) for m in desired}
            with self._lock:
                self._deleted[key] = self._deleted.get(key, set()) & names
        plan = self._plan(key, desired, children, deleted)
        stale = self._stale(owner, desired, children)
        failure = self._failures.get(key)
        if not plan and not stale:
            self._failures.pop(key, None)
            failure = None
        elif failure is None or failure.retry_at <= self.clock():
            try:
                self._execute(body, key, plan)
                self._prune(body, key, stale)
            except Rejected as err:
                self.metrics.reconciles.labels("rejected").inc()
                error = SpecError(
                    "ChildRejected",
                    f"{err}; nothing was created or changed: fix the TFCluster's spec",
                )
                self._rejected[key] = (wanted, error)
                return SyncResult(self._write_failed(body, error))
            except Abandoned:
                return SyncResult(None)
            except _StepFailed as err:
                failure = self._fail(key, err.step, err.error)
            else:
                self._failures.pop(key, None)
                failure = None
        if outcome is not None and failure is None:
            try:
                self._kueue_side(spec, children, outcome)
            except KubeError as err:
                failure = self._fail(key, "workload-status", err)
        self.metrics.reconciles.labels("error" if failure else "success").inc()
        status = self._write_status(
            body, spec, children, failure.message if failure else None, outcome
        )
        retry = max(failure.retry_at - self.clock(), 0.1) if failure else None
        if outcome is not None:
            later = self._expire(body, spec, status)
            if later is not None:
                retry = later if retry is None else min(retry, later)
        if secured.renew_in is not None:  # a sync when the next certificate falls due
            retry = secured.renew_in if retry is None else min(retry, secured.renew_in)
        return SyncResult(status, retry)

    # ------------------------------------------------------------- runs to completion

    def _outcome(
        self, spec: TFClusterSpec, children: Children, previous: Mapping[str, Any]
    ) -> RunOutcome | None:
        if not spec.runs_to_completion:
            return None
        gate = None
        if spec.queue_name:
            gate = kueue.gate(children.get(WORKLOAD_KIND, kueue.workload_name(spec.name)))
        return decide_run(
            spec,
            children.jobs,
            children.pods,
            previous,
            now=datetime.now(UTC),
            suspended="Suspended" if spec.suspend else gate,
        )

    def _kueue_side(self, spec: TFClusterSpec, children: Children, outcome: RunOutcome) -> None:
        """Kueue's contract, the job's side: give an evicted run's quota back, and a
        finished run's, once their pods are gone (kueue.py)."""
        if not spec.queue_name:
            return
        name = kueue.workload_name(spec.name)
        live = children.get(WORKLOAD_KIND, name)
        if live is None or any(_pod_active(p) for p in children.pods):
            return
        if outcome.ended and not kueue.finished(live):
            self.kube.patch_workload_status(
                spec.namespace, name, kueue.finished_status(outcome.phase, outcome.message, now())
            )
        elif outcome.reason == kueue.EVICTED and kueue.holds_quota(live):
            self.kube.patch_workload_status(
                spec.namespace,
                name,
                kueue.released_status(live, now()),
                manager=kueue.ADMISSION_MANAGER,
            )

    def _expire(
        self, body: Mapping[str, Any], spec: TFClusterSpec, status: Mapping[str, Any]
    ) -> float | None:
        """ttlSecondsAfterFinished: delete the run once it is due; else seconds until then."""
        due = ttl_due(spec, status)
        if due is None:
            return None
        left = (due - datetime.now(UTC)).total_seconds()
        if left > 0:
            return left + 0.5
        meta = body["metadata"]
        try:
            gone = self.kube.delete_tfcluster(meta["namespace"], meta["name"], str(meta["uid"]))
        except KubeError as err:
            log.warning("TFCluster %s: cannot delete it after its TTL: %s", _name(body), err)
            return RETRY_DELAY
        if gone:
            log.info("TFCluster %s: deleted, ttlSecondsAfterFinished passed", _name(body))
        return None

    def _parse(self, body: Mapping[str, Any]) -> TFClusterSpec:
        meta = body["metadata"]
        return parse_spec(
            meta["name"],
            meta["namespace"],
            body.get("spec") or {},
            default_image=self.config.default_image,
            labels=meta.get("labels") or {},
        )

    def _desired(
        self,
        spec: TFClusterSpec,
        owner: OwnerRef,
        children: Children,
        outcome: RunOutcome | None,
    ) -> list[dict[str, Any]]:
        """Headless Services first, so the pods' DNS names exist when they start; the
        PodGroup and the Workload before the pods they gate."""
        domain = self.config.cluster_domain
        optional = [
            builders.podgroup(spec, owner),
            builders.workload(spec, owner, domain),
            *(builders.disruption_budget(spec, job, owner) for job in spec.jobs),
        ]
        gates = [m for m in optional if m is not None]
        services = [
            *(builders.job_service(spec, job.name, owner) for job in spec.jobs),
            builders.client_service(spec, owner),
        ]
        if outcome is None:
            return [
                *services[:-1],
                *gates,
                *(builders.statefulset(spec, job, owner, domain) for job in spec.jobs),
                services[-1],
            ]
        stopping = outcome.stopping(spec)
        progress = {p.name: p for p in outcome.jobs}
        jobs = []
        for job in spec.jobs:
            if job.replicas == 0:
                continue
            done = job.name in progress and progress[job.name].finished
            # A finished Job keeps its suspend as it was (nothing left to stop).
            suspend = not done and (outcome.phase == "Suspended" or job.name in stopping)
            jobs.append(builders.indexed_job(spec, job, owner, domain, suspend=suspend))
        wanted = [*services[:-1], *gates, *jobs, services[-1]]
        if not outcome.ended:
            return wanted
        run = spec.run_policy
        if run is not None and run.clean_pod_policy == "All":
            # Everything goes but the Workload (it tells Kueue the run finished).
            return [
                m
                for m in wanted
                if kind_key(m) == WORKLOAD_KIND
                and children.get(WORKLOAD_KIND, m["metadata"]["name"])
            ]
        # A run that ended creates nothing again: only what is there is kept in line.
        return [m for m in wanted if children.get(kind_key(m), m["metadata"]["name"])]

    def _plan(
        self,
        key: Key,
        desired: list[dict[str, Any]],
        children: Children,
        deleted: set[tuple[str, str]],
    ) -> list[Action]:
        records = self._applied.get(key, {})
        plan = []
        for manifest in desired:
            kind, name = kind_key(manifest), str(manifest["metadata"]["name"])
            live = children.get(kind, name)
            record = records.get((kind, name))
            new_manifest = record is None or record.fingerprint != fingerprint(manifest)
            if live is None:
                if record is None:
                    plan.append(Action(manifest, None, "create", True))
                elif (kind, name) in deleted or self.clock() - record.at > UNSEEN_GRACE_SECONDS:
                    plan.append(Action(manifest, None, "recreate", new_manifest))
                # else: applied a moment ago; its watch event is on the way
                continue
            if new_manifest or record is None or record.uid != live["metadata"].get("uid"):
                plan.append(Action(manifest, live, "update", new_manifest))
                continue
            drift = differences(project(live, manifest), record.baseline)
            if drift:
                plan.append(Action(manifest, live, "repair", False, drift))
        return plan

    def _execute(self, body: Mapping[str, Any], key: Key, plan: list[Action]) -> None:
        if any(a.why == "recreate" for a in plan):
            self._check_owner(body)
        for action in plan:
            if action.dry_run:
                try:
                    self.kube.apply(action.manifest, dry_run=True)
                except KubeError as err:
                    self._raise(action, err, "validate")
        for action in plan:
            try:
                answer = self.kube.apply(action.manifest)
            except KubeError as err:
                self._raise(action, err, "apply")
            self._record(key, action, answer)
            self._announce_apply(body, action, answer)

    def _check_owner(self, body: Mapping[str, Any]) -> None:
        """Before re-creating a deleted child: the TFCluster must still be there (the
        garbage collector deletes children after their owner) and its namespace alive."""
        meta = body["metadata"]
        try:
            current = self.kube.get_tfcluster(meta["namespace"], meta["name"])
            gone = self.namespaces.terminating(meta["namespace"], check=True)
        except KubeError as err:
            raise _StepFailed("check-owner", err) from None
        if gone or current is None or current["metadata"].get("uid") != meta["uid"]:
            raise Abandoned()
        if current["metadata"].get("deletionTimestamp"):
            raise Abandoned()

    def _raise(self, action: Action, err: KubeError, step: str) -> NoReturn:
        if err.namespace_terminating:
            self.namespaces.mark(str(action.manifest["metadata"]["namespace"]))
            raise Abandoned()
        if err.rejected:
            raise Rejected(action, err)
        raise _StepFailed(f"{step} {action.kind} {action.name}", err)

    def _record(self, key: Key, action: Action, answer: Mapping[str, Any]) -> None:
        self._applied.setdefault(key, {})[(action.kind, action.name)] = Applied(
            uid=str(answer.get("metadata", {}).get("uid")),
            fingerprint=fingerprint(action.manifest),
            baseline=project(answer, action.manifest),
            at=self.clock(),
        )
        with self._lock:
            self._deleted.get(key, set()).discard((action.kind, action.name))

    def _announce_apply(
        self, body: Mapping[str, Any], action: Action, answer: Mapping[str, Any]
    ) -> None:
        what = f"{action.kind} {action.name}"
        if action.live is None:
            self.events.post(body, "Normal", "Created", f"Created {what}")
            log.info("TFCluster %s: created %s", _name(body), what)
            return
        before = action.live["metadata"].get("resourceVersion")
        if before == answer.get("metadata", {}).get("resourceVersion"):
            return  # the server had it already: nothing changed
        if action.why == "repair":
            # A Secret's values are keys: name the fields only.
            reverted = render(action.drift, values=action.kind != "Secret")
            self.metrics.drift_repairs.labels(action.kind).inc()
            self.events.post(
                body,
                "Warning",
                "DriftReverted",
                f"Reverted {what}: {reverted} (the operator owns these fields: change the "
                "TFCluster instead)",
            )
            log.warning("TFCluster %s: reverted %s: %s", _name(body), what, reverted)
        else:
            self.events.post(body, "Normal", "Updated", f"Updated {what}")
            log.info("TFCluster %s: updated %s", _name(body), what)

    @staticmethod
    def _stale(
        owner: OwnerRef, desired: list[dict[str, Any]], children: Children
    ) -> list[tuple[str, str]]:
        """Children the spec no longer wants (only ones this TFCluster owns). A Workload
        stays while its TFCluster does: Kueue accounts the run by it."""
        wanted = {(kind_key(m), str(m["metadata"]["name"])) for m in desired}
        return [
            (kind, name)
            for kind in children.kinds
            if kind != WORKLOAD_KIND
            for name, obj in children.of_kind(kind).items()
            if (kind, name) not in wanted
            and any(o.get("uid") == owner.uid for o in obj["metadata"].get("ownerReferences") or [])
        ]

    def _prune(self, body: Mapping[str, Any], key: Key, stale: list[tuple[str, str]]) -> None:
        for kind, name in stale:
            try:
                gone = self.kube.delete(kind, key[0], name)
            except KubeError as err:
                raise _StepFailed(f"prune {kind} {name}", err) from None
            self._applied.get(key, {}).pop((kind, name), None)
            if gone:
                self.events.post(body, "Normal", "Deleted", f"Deleted {kind} {name}")

    def _fail(self, key: Key, step: str, error: KubeError) -> Failure:
        self.metrics.reconcile_errors.labels(step.split(" ")[0]).inc()
        before = self._failures.get(key)
        delay = min(before.delay * 2, MAX_RETRY_DELAY) if before else RETRY_DELAY
        failure = Failure(f"step {step}: {error}", delay, self.clock() + delay)
        self._failures[key] = failure
        log.warning("TFCluster %s/%s: %s (retry in %.0f s)", *key, failure.message, delay)
        return failure

    # ------------------------------------------------------------- status

    def _previous(self, key: Key, body: Mapping[str, Any]) -> dict[str, Any]:
        written = self._written.get(key)
        if written is not None and self.clock() - written[1] < WRITTEN_TRUST_SECONDS:
            return written[0]
        return dict(body.get("status") or {})

    def _write_status(
        self,
        body: Mapping[str, Any],
        spec: TFClusterSpec,
        children: Children,
        error: str | None,
        outcome: RunOutcome | None = None,
    ) -> dict[str, Any]:
        meta = body["metadata"]
        key = (meta["namespace"], meta["name"])
        previous = self._previous(key, body)
        stamp = now()
        if outcome is not None:
            status = run_status(
                spec,
                outcome,
                generation=int(meta.get("generation") or 0),
                previous=previous,
                now=stamp,
                endpoint=endpoint(spec, self.config.cluster_domain),
                cluster_spec=builders.cluster_spec(spec, self.config.cluster_domain),
                applied=error is None,
            )
            found = signatures(outcome.problems)
            if error:
                status["reason"] = "ReconcileError"
                found["Degraded"] = frozenset({("ReconcileError", error)})
            self._store(body, previous, status, found)
            return status
        status = compute_status(
            spec,
            list(children.statefulsets.values()),
            children.pods,
            generation=int(meta.get("generation") or 0),
            previous=previous,
            now=stamp,
            cluster_domain=self.config.cluster_domain,
            reconcile_error=error,
        )
        found = signatures(task_problems(spec, children.pods, stamp))
        if error:
            found["Degraded"] = frozenset({("ReconcileError", error)})
        self._store(body, previous, status, found)
        return status

    def _write_failed(self, body: Mapping[str, Any], error: SpecError) -> dict[str, Any]:
        meta = body["metadata"]
        key = (meta["namespace"], meta["name"])
        previous = self._previous(key, body)
        status = invalid_status(
            error,
            generation=int(meta.get("generation") or 0),
            previous=previous,
            now=now(),
        )
        self._store(
            body, previous, status, {"Degraded": frozenset({(error.reason, error.message)})}
        )
        return status

    def _store(
        self,
        body: Mapping[str, Any],
        previous: Mapping[str, Any],
        status: dict[str, Any],
        found: Mapping[str, frozenset[tuple[str, str]]],
    ) -> None:
        meta = body["metadata"]
        key = (meta["namespace"], meta["name"])
        self.metrics.observe(meta["namespace"], meta["name"], status)
        if _same_status(previous, status):
            return
        try:
            self.kube.patch_tfcluster_status(
                meta["namespace"], meta["name"], merge_patch(previous, status)
            )
        except KubeError as err:
            if err.namespace_terminating:
                self.namespaces.mark(meta["namespace"])
                return
            raise
        self._written[key] = (status, self.clock())
        self.metrics.status_updates.inc()
        self._announce_status(body, previous, status, found)

    def _announce_status(
        self,
        body: Mapping[str, Any],
        previous: Mapping[str, Any],
        status: Mapping[str, Any],
        found: Mapping[str, frozenset[tuple[str, str]]],
    ) -> None:
        """One event per change a user should hear of: the phase, a new reason to be
        Degraded or pods that cannot be scheduled (``found``: what went wrong, whichever
        tasks it hit), recovery."""
        meta = body["metadata"]
        key = (meta["namespace"], meta["name"])
        old_phase, new_phase = previous.get("phase"), status.get("phase")
        if old_phase != new_phase:
            self.events.post(
                body, "Normal", f"Phase{new_phase}", f"phase {old_phase or 'None'} -> {new_phase}"
            )
        announced = self._announced.setdefault(key, {})
        if new_phase == PHASE_FAILED and old_phase != PHASE_FAILED:
            failed = condition(status, "Failed") or {}
            self.events.post(body, "Warning", str(failed.get("reason")), str(failed.get("message")))
        if new_phase == PHASE_RESTARTING and int(status.get("restarts") or 0) > int(
            previous.get("restarts") or 0
        ):
            restarting = condition(status, "Restarting") or {}
            self.events.post(body, "Warning", "TaskRestarted", str(restarting.get("message")))
        old = condition(previous, "Degraded") or {}
        new = condition(status, "Degraded") or {}
        if new.get("status") == "True":
            if self._news(announced, "Degraded", found.get("Degraded"), old, new):
                self.events.post(body, "Warning", str(new["reason"]), str(new["message"]))
        else:
            announced.pop("Degraded", None)
            if old.get("status") == "True":
                self.events.post(
                    body, "Normal", "Recovered", f"no longer degraded ({old['reason']})"
                )
        old_progress = condition(previous, "Progressing") or {}
        progress = condition(status, "Progressing") or {}
        if progress.get("reason") == UNSCHEDULABLE:
            if self._news(
                announced, UNSCHEDULABLE, found.get(UNSCHEDULABLE), old_progress, progress
            ):
                self.events.post(body, "Warning", UNSCHEDULABLE, str(progress["message"]))
        else:
            announced.pop(UNSCHEDULABLE, None)

    @staticmethod
    def _news(
        announced: dict[str, frozenset[tuple[str, str]]],
        kind: str,
        signature: frozenset[tuple[str, str]] | None,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
    ) -> bool:
        """Whether ``kind``'s trouble is news: something went wrong that was not announced
        already (after a restart of the operator: the condition it finds differs)."""
        signature = signature or frozenset({(str(new.get("reason")), str(new.get("message")))})
        before = announced.get(kind)
        announced[kind] = signature
        return _changed(old, new) if before is None else bool(signature - before)


class _StepFailed(Exception):
    def __init__(self, step: str, error: KubeError) -> None:
        super().__init__(f"step {step}: {error}")
        self.step = step
        self.error = error


def _changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return any(old.get(k) != new.get(k) for k in ("status", "reason", "message"))


def _pod_active(pod: Mapping[str, Any]) -> bool:
    """A pod that still holds its resources (running, or being stopped)."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def _name(body: Mapping[str, Any]) -> str:
    return f"{body['metadata']['namespace']}/{body['metadata']['name']}"


def merge_patch(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON merge patch turning ``old`` into ``new``: keys that went away become null
    (a merge patch keeps what it does not mention), maps recurse, the rest is replaced."""
    patch: dict[str, Any] = dict.fromkeys(set(old) - set(new))
    for key, value in new.items():
        before = old.get(key)
        if isinstance(value, Mapping) and isinstance(before, Mapping):
            patch[key] = merge_patch(before, value)
        else:
            patch[key] = value
    return patch


def _same_status(previous: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    return all(previous.get(k) == v for k, v in status.items()) and set(previous) <= set(status)


__all__ = [
    "Reconciler",
    "SyncResult",
    "fingerprint",
    "merge_patch",
]
