-- Module android.cpu.cluster_type, as upstream's module of that name: each
-- CPU's cluster (little, mid, big). zerotrace does not import CPU
-- descriptions, so `android_cpu_cluster_mapping` is empty, with upstream
-- v58.2's columns (Perfetto UI joins it for any thread slice).

CREATE PERFETTO TABLE android_cpu_cluster_mapping(ucpu LONG, cpu LONG, cluster_type STRING) AS
SELECT NULL AS ucpu, NULL AS cpu, NULL AS cluster_type WHERE 0;
