-- Module viz.summary.trace, as upstream's module of that name documents
-- it: whether a machine is known to run Linux (exactly one system_name
-- metadata entry saying so; zerotrace's importers record none, so 0).

CREATE PERFETTO FUNCTION _is_linux_machine(machine_id LONG)
RETURNS LONG AS
SELECT COUNT(*) = 1
FROM metadata
WHERE name = 'system_name' AND str_value = 'Linux' AND machine_id = $machine_id;
