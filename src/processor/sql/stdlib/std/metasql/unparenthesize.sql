-- Module std.metasql.unparenthesize, as upstream's module of that name:
-- a parenthesised list of expressions spliced where a list goes (a select
-- list, a GROUP BY), "(a, SUM(b) AS b)" giving "a, SUM(b) AS b".

CREATE PERFETTO MACRO metasql_unparenthesize_exprlist(exprs ExprList)
RETURNS UnparenExprList
AS __zt_columns!($exprs);
