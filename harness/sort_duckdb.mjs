// sort_duckdb.mjs - the DuckDB side of bench.sh's sort cases: sort a lineitem
// CSV by (l_shipdate, l_orderkey) under a memory limit and write it out.
//
//	node harness/sort_duckdb.mjs FILE OUT LIMIT      e.g. LIMIT 64MB
//
// COPY (SELECT * FROM read_csv(FILE, buffer_size=262144) ORDER BY ...)
// TO OUT as CSV without a header, with 2 threads and the temporary
// directory next to OUT.  Exits non-zero (with DuckDB's message) when the
// limit is too small, which is how bench.sh finds the smallest one that
// works.  @duckdb/node-api is resolved from tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const args = process.argv.slice(2);
if (args.length !== 3) {
	process.stderr.write('usage: sort_duckdb.mjs FILE OUT LIMIT\n');
	process.exit(2);
}
const [file, out, limit] = args;
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:', {
	threads: '2',
	memory_limit: limit,
	temp_directory: path.join(path.dirname(out), 'duckdb.tmp'),
});
const con = await instance.connect();
try {
	await con.run(`COPY (SELECT * FROM read_csv(${lit(file)},
	    buffer_size = 262144) ORDER BY l_shipdate, l_orderkey)
	    TO ${lit(out)} (FORMAT csv, HEADER false)`);
} catch (e) {
	process.stderr.write(`duckdb: ${String(e.message).split('\n')[0]}\n`);
	process.exit(1);
}
con.closeSync?.();
instance.closeSync?.();
