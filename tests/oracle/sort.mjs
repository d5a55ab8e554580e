// sort.mjs - DuckDB's ORDER BY for tests/oracle/sort.sh.
//
// Usage: node sort.mjs CSV OUT 'ORDER BY list' 'SELECT list'
// Writes the selected columns of CSV's rows in DuckDB's order to OUT, one
// row per line, comma-separated, no header.  DuckDB compares strings
// bytewise (its default binary collation), as colsort does.

import { DuckDBInstance } from '@duckdb/node-api';

const [csv, out, order, select] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
const q = (s) => `'${s.replace(/'/g, "''")}'`;
await con.run(`COPY (SELECT ${select} FROM read_csv(${q(csv)}, header = true)
    ORDER BY ${order}) TO ${q(out)} (FORMAT csv, HEADER false)`);
