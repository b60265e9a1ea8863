SELECT flat_key, COUNT(*) FROM __zt_args GROUP BY flat_key -- c
