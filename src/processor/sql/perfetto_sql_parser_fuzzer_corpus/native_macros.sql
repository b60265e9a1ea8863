SELECT items!((a, (SELECT x, y FROM t), b)), items!(()), pair!(items!((1)), 2);
SELECT * FROM items!(x);
