// tpch_duckdb.mjs - the DuckDB side of bench.sh's tpch cases: the official SQL
// of a TPC-H query (harness/tpch/sql/qNN.sql) over the CSV files or over
// DuckDB's own tables, with 2 threads, and the check of colpipe's answers
// against DuckDB's.  The modes csv, db and startup are each one whole
// process timed from outside by harness/timer, start-up included, as a
// user runs them.
//
//	node harness/tpch_duckdb.mjs startup
//		load DuckDB and connect, nothing else: context for the rest
//	node harness/tpch_duckdb.mjs load CSVDIR DB
//		create DB (a .duckdb file) with the eight tables in the
//		official column types, loaded from CSVDIR/NAME.csv; untimed
//	node harness/tpch_duckdb.mjs csv NN CSVDIR
//		query NN over views of read_csv(CSVDIR/NAME.csv) with the
//		official column types (nothing loaded beforehand), the answer
//		to stdout as CSV
//	node harness/tpch_duckdb.mjs db NN DB
//		query NN over DB's tables, the answer to stdout as CSV
//	node harness/tpch_duckdb.mjs check DB CSVDIR ANSDIR NN...
//		for each NN, DuckDB's answer over DB's tables is the reference;
//		held against it: ANSDIR/qNN.csv.csv and ANSDIR/qNN.col.csv
//		(colpipe's answers from the CSV and the .col files; a missing
//		file is a failed run) and the csv mode's answer.  Prints one
//		line per answer, "NN SIDE ok" or "NN SIDE wrong: WHY", SIDE
//		one of cp_csv, cp_col, dd_csv; exit 1 if any is wrong
//
// The comparison is tests/oracle/tpch_check.mjs's, the one make check
// holds the query scripts to.  @duckdb/node-api is resolved from
// tests/oracle ("make deps").

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { TABLES, duckAnswer, duckText, checkCsv, compare } from
    '../tests/oracle/tpch_check.mjs';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(top, 'tests/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const sqlOf = (nn) => readFileSync(path.join(top, 'harness/tpch/sql',
    `q${String(Number(nn)).padStart(2, '0')}.sql`), 'utf8');

// read_csv's columns={...} for a table: TABLES' "name TYPE, ..." (a
// DECIMAL(15,2) has no space after its comma).
function columns(t) {
	return '{' + TABLES[t].split(/,\s+/).map((c) => {
		const [n, ty] = c.trim().split(/\s+/);
		return `${lit(n)}: ${lit(ty)}`;
	}).join(', ') + '}';
}

async function open(file) {
	const instance = await DuckDBInstance.create(file, { threads: '2' });
	return instance.connect();
}

async function views(con, dir) {
	for (const t of Object.keys(TABLES))
		await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_csv(` +
		    `${lit(path.join(dir, `${t}.csv`))}, header = true, ` +
		    `delim = ',', quote = '"', columns = ${columns(t)})`);
}

// An answer as CSV, enough to make DuckDB produce every value as text the
// way colpipe's last stage does.
function print(ans) {
	const out = [ans.names.join(',')];
	for (const r of ans.rows)
		out.push(r.map((v) => duckText(v) ?? '').join(','));
	process.stdout.write(out.join('\n') + '\n');
}

const arity = { startup: 0, load: 2, csv: 2, db: 2 };
const [mode, ...args] = process.argv.slice(2);
if (!(mode in arity ? args.length === arity[mode] :
    mode === 'check' && args.length >= 4)) {
	process.stderr.write('usage: tpch_duckdb.mjs startup | load CSVDIR DB' +
	    ' | csv NN CSVDIR | db NN DB | check DB CSVDIR ANSDIR NN...\n');
	process.exit(2);
}

try {
	if (mode === 'startup') {
		await open(':memory:');
	} else if (mode === 'load') {
		const con = await open(args[1]);
		for (const [t, cols] of Object.entries(TABLES)) {
			await con.run(`CREATE TABLE ${t} (${cols})`);
			await con.run(`COPY ${t} FROM ` +
			    `${lit(path.join(args[0], `${t}.csv`))} ` +
			    `(HEADER, DELIMITER ',', QUOTE '"')`);
		}
		await con.run('CHECKPOINT');
	} else if (mode === 'csv') {
		const con = await open(':memory:');
		await views(con, args[1]);
		print(await duckAnswer(con, sqlOf(args[0])));
	} else if (mode === 'db') {
		const con = await open(args[1]);
		print(await duckAnswer(con, sqlOf(args[0])));
	} else {
		const [db, csvdir, ansdir, ...nns] = args;
		const ref = await open(db);
		const viaCsv = await open(':memory:');
		await views(viaCsv, csvdir);
		let bad = 0;
		const say = (nn, side, why) => {
			if (why !== null)
				bad++;
			process.stdout.write(`${nn} ${side} ${why === null ? 'ok' :
			    'wrong: ' + why.join(' / ').replace(/\n/g, ' ')}\n`);
		};
		for (const nn of nns) {
			const ans = await duckAnswer(ref, sqlOf(nn));
			for (const side of ['csv', 'col']) {
				const f = path.join(ansdir, `q${nn}.${side}.csv`);
				say(nn, `cp_${side}`, existsSync(f) ?
				    checkCsv(readFileSync(f, 'utf8'), ans) :
				    ['the script failed']);
			}
			const dd = await duckAnswer(viaCsv, sqlOf(nn));
			say(nn, 'dd_csv', dd.names.join(',') !== ans.names.join(',') ?
			    [`header ${dd.names.join(',')}`] :
			    compare(dd.rows.map((r) => r.map(duckText)), ans.rows,
			    ans.names, ans.types, ans.keys));
		}
		process.exit(bad === 0 ? 0 : 1);
	}
} catch (e) {
	process.stderr.write(`tpch_duckdb.mjs ${mode}: ${e.message}\n`);
	process.exit(1);
}
