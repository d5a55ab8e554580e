// tpch_queries.mjs - the TPC-H query scripts against DuckDB, for
// tests/oracle/tpch_queries.sh.
//
// DuckDB loads the eight CSVs into tables of the official TPC-H column
// types and runs each harness/tpch/sql/qNN.sql.  Every harness/tpch/qNN.sh
// there is (found by glob) runs on WORK/col, the tables converted once to
// .col; those named in CSV_QUERIES run on the CSVs as well.  What is
// compared, and how exactly, is tpch_check.mjs's (shared with the
// benchmark, harness/bench.sh).
//
// Environment: COLPIPE_BIN, TPCH (the directory of the query scripts),
// WORK (csv/ with NAME.csv, col/ with NAME.col; the caller removes it),
// CSV_DIR (the directory the CSV runs read), TPCH_QUERIES (optional: the
// query numbers to run, as "3 5").

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Tap, sh, shDiag } from './lib.mjs';
import { TABLES, duckAnswer, checkCsv } from './tpch_check.mjs';

const BIN = process.env.COLPIPE_BIN;
const TPCH = process.env.TPCH;
const WORK = process.env.WORK;
const CSV_DIR = process.env.CSV_DIR;
const ONLY = (process.env.TPCH_QUERIES ?? '').split(/\s+/).filter(Boolean)
	.map((n) => String(Number(n)).padStart(2, '0'));
const CSV_QUERIES = ['01', '03'];
const tap = new Tap();
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
for (const [t, cols] of Object.entries(TABLES)) {
	await con.run(`CREATE TABLE ${t} (${cols})`);
	await con.run(`COPY ${t} FROM '${join(WORK, 'csv', `${t}.csv`)}' ` +
	    `(HEADER, DELIMITER ',', QUOTE '"')`);
}

const scripts = readdirSync(TPCH).filter((f) => /^q[0-9]{2}\.sh$/.test(f))
	.sort().filter((f) => ONLY.length === 0 || ONLY.includes(f.slice(1, 3)));
if (scripts.length === 0)
	tap.ok(false, `no query scripts harness/tpch/qNN.sh in ${TPCH}`);

for (const f of scripts) {
	const nn = f.slice(1, 3);
	const sqlPath = join(TPCH, 'sql', `q${nn}.sql`);
	if (!existsSync(sqlPath)) {
		tap.ok(false, `Q${nn}: ${sqlPath} is missing`);
		continue;
	}
	const sql = readFileSync(sqlPath, 'utf8');
	let ans;
	try {
		ans = await duckAnswer(con, sql);
	} catch (e) {
		tap.ok(false, `Q${nn}: DuckDB runs ${sqlPath}`, String(e.message));
		continue;
	}
	const dirs = [['col', join(WORK, 'col')]];
	if (CSV_QUERIES.includes(nn))
		dirs.push(['csv', CSV_DIR]);
	for (const [what, dir] of dirs) {
		const desc = `Q${nn} from ${what}: ${ans.rows.length} rows equal ` +
		    `to DuckDB's${ans.keys === null ? ' (as a multiset)' : ''}`;
		const t0 = Date.now();
		const r = sh(`${q(join(TPCH, f))} ${q(dir)}`, { env });
		const secs = ((Date.now() - t0) / 1000).toFixed(2);
		if (r.status !== 0 || r.signal) {
			tap.ok(false, desc, [`${f} ${dir}`, ...shDiag(r)]);
			continue;
		}
		const why = checkCsv(r.stdout, ans);
		if (tap.ok(why === null, desc, why ?? []))
			tap.note(`Q${nn} ${what} ${secs} s`);
	}
}
process.exit(tap.done());
