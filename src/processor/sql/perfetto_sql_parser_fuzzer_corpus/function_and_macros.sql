CREATE OR REPLACE PERFETTO FUNCTION f(
  -- c
  a LONG, b JOINID(slice.id)) RETURNS TABLE(x LONG) AS SELECT $a, 'q;''' FROM t;
SELECT twice!(pair!(1, 2)) /* ; */ FROM x;