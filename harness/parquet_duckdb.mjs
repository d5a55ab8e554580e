// parquet_duckdb.mjs - the DuckDB side of bench.sh's parquet cases.
//
//	node harness/parquet_duckdb.mjs copy CSV OUT CODEC
//		COPY (FROM read_csv(CSV)) TO OUT (FORMAT parquet,
//		COMPRESSION CODEC), 2 threads: the timed peer.
//	node harness/parquet_duckdb.mjs answer FILE
//		"rows=N sum_qty=Q sum_price=P max_comment=C" of a Parquet file
//		or, for a .csv, of read_csv: what every case must agree on.
//
// @duckdb/node-api is resolved from tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const [mode, ...args] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
if (mode === 'copy' && args.length === 3) {
	const [csv, out, codec] = args;
	await con.run(`COPY (FROM read_csv(${lit(csv)})) TO ${lit(out)}
	    (FORMAT parquet, COMPRESSION ${codec})`);
} else if (mode === 'answer' && args.length === 1) {
	const f = args[0];
	const from = f.endsWith('.csv') ?
	    `read_csv(${lit(f)}, types = {'l_extendedprice': 'DECIMAL(18,2)', 'l_quantity': 'DECIMAL(18,2)'})` :
	    `read_parquet(${lit(f)})`;
	const r = await con.runAndReadAll(`SELECT count(*)::VARCHAR,
	    sum(l_quantity::DECIMAL(18,2))::VARCHAR,
	    sum(l_extendedprice::DECIMAL(18,2))::VARCHAR,
	    max(l_comment), min(l_shipdate)::VARCHAR FROM ${from}`);
	const [n, q, p, c, d] = r.getRowsJson()[0];
	process.stdout.write(`rows=${n} sum_qty=${q} sum_price=${p} ` +
	    `max_comment=${c} min_shipdate=${d}\n`);
} else {
	process.stderr.write('usage: parquet_duckdb.mjs copy CSV OUT CODEC | answer FILE\n');
	process.exit(2);
}
