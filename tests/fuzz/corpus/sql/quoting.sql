SELECT `id`, "Odd ""Name""", CAST(x AS DECIMAL(10, 2)) FROM t -- comment
/* block */;