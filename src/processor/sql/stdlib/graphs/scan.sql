-- Module graphs.scan, as upstream's module of that name: _graph_scan!,
-- values carried down a graph level by level (operators/graph_scan.h). The
-- macro is built into every session; this module only lets an INCLUDE of
-- upstream's name succeed.

SELECT 1 WHERE 0;
