-- Module linux.systemd_journald, as upstream's module of that name documents
-- it. zerotrace imports no system logs (journald):
-- `linux_systemd_journald_logs` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW linux_systemd_journald_logs AS
  SELECT NULL AS id, NULL AS ts, NULL AS utid, NULL AS prio, NULL AS tag, NULL AS msg,
    NULL AS uid, NULL AS comm, NULL AS systemd_unit, NULL AS hostname, NULL AS transport
  WHERE 0;
