"""What an upgrade does to the pods on the nodes it drains (Selectel's strategy
page, the YTsaurus update strategies, the Kubernetes eviction docs: ``docs/sources.md``). Pure.

Entry points: :func:`ngupgrade.core.drain.check.check_group` /
:func:`~ngupgrade.core.drain.check.check_groups`, or for many plans of one group
:meth:`ngupgrade.core.drain.drain_model.DrainModel.build` then
``check_model(model, plan)``. The platform's
reaction is a :class:`ngupgrade.core.platform.DrainRules` (``YANDEX_DRAIN_RULES``,
``SELECTEL_DRAIN_RULES``). Modules, inside out: ``selectors``, ``resources``, ``eviction``,
``fit``, ``index``, ``group``, ``waves``, ``run``, ``reactions``, ``unplaced``, ``ytsaurus``,
``walk``, ``check``; ``blockers`` is the quick cluster-wide check of ``preflight --pdbs``.
Rules and worked examples: docs/drain.md.
"""
