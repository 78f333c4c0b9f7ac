"""The policy advisor (docs/advise.md): the fastest safe deploy policy of each
node group, its Pareto front, why faster policies fail, and a schedule for several groups.

Modules: :mod:`.candidates` (the policies and their closed-form figures), :mod:`.judge`
(quota, availability floor, the workload-judge protocol), :mod:`.front` (Pareto front),
:mod:`.recommend` (the search), :mod:`.schedule` (several groups), :mod:`.calibrate`
(minutes per cycle from history), :mod:`.advice` (the entry points).
"""
