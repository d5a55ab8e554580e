// lib.mjs - pieces shared by the differential tests against DuckDB.
//
// Tap: numbered TAP output with diagnostics.  readColpipeJsonl: colpipe's
// JSON Lines read back with the text of every number kept, because a
// decimal's scale ("901.00") is part of what is being checked and
// JSON.parse would drop it.  sameValue: one colpipe value against one
// DuckDB value of a given DuckDB type, exactly: integers as BigInt,
// decimals as text at colpipe's scale (DuckDB reads money as DOUBLE; the
// double nearest a two-place decimal always prints back as that decimal
// with toFixed(2)), floats as the same double, dates and timestamps as
// text, strings byte for byte.

import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export class Tap {
	constructor() {
		this.n = 0;
		this.failed = 0;
	}

	ok(pass, desc, diag = []) {
		this.n++;
		if (!pass)
			this.failed++;
		console.log(`${pass ? 'ok' : 'not ok'} ${this.n} - ${desc}`);
		if (!pass)
			for (const d of [].concat(diag))
				for (const l of String(d).split('\n'))
					console.log(`# ${l}`);
		return pass;
	}

	skip(desc, reason) {
		this.n++;
		console.log(`ok ${this.n} - ${desc} # skip ${reason}`);
	}

	note(text) {
		for (const l of String(text).split('\n'))
			console.log(`# ${l}`);
	}

	done() {
		console.log(`1..${this.n}`);
		return this.failed === 0 ? 0 : 1;
	}
}

// Runs a bash command line with pipefail; returns {status, signal,
// stdout, stderr} with the outputs as strings.
export function sh(cmd, opts = {}) {
	const r = spawnSync('bash', ['-c', `set -o pipefail; ${cmd}`], {
		encoding: 'utf8',
		maxBuffer: 1 << 30,
		timeout: opts.timeout ?? 300000,
		env: opts.env ?? process.env,
		cwd: opts.cwd,
	});
	return {
		status: r.status,
		signal: r.signal,
		stdout: r.stdout ?? '',
		stderr: r.stderr ?? '',
		error: r.error,
	};
}

export function shDiag(r) {
	const d = [`exit status ${r.status}${r.signal ? ` signal ${r.signal}` : ''}`];
	if (r.error)
		d.push(String(r.error));
	if (r.stderr)
		d.push(`stderr: ${r.stderr.slice(0, 2000)}`);
	return d;
}

const NUM_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

// Parses one flat JSON object line of col2csv --format jsonl into
// [{key, kind, v}]: kind 's' (v the decoded string), 'n' (v the number's
// text), 'b' (v 'true'/'false'), 'z' (null).  Throws on anything that is
// not a flat object of those values.
export function parseFlatLine(line) {
	const out = [];
	let i = 0;
	const n = line.length;
	const fail = (what) => {
		throw new Error(`${what} at offset ${i}: ${line.slice(0, 200)}`);
	};
	const str = () => {
		if (line.charCodeAt(i) !== 34)
			fail('expected a string');
		let j = i + 1, esc = false;
		for (; j < n; j++) {
			const c = line.charCodeAt(j);
			if (c === 92) { esc = true; j++; continue; }
			if (c === 34) break;
			if (c < 32) fail('raw control character in a string');
		}
		if (j >= n)
			fail('unterminated string');
		const s = esc ? JSON.parse(line.slice(i, j + 1)) : line.slice(i + 1, j);
		i = j + 1;
		return s;
	};
	if (line[i++] !== '{')
		fail('expected {');
	if (line[i] === '}') {
		if (i + 1 !== n) fail('text after }');
		return out;
	}
	for (;;) {
		const key = str();
		if (line[i++] !== ':')
			fail('expected :');
		const c = line[i];
		if (c === '"') {
			out.push({ key, kind: 's', v: str() });
		} else if (line.startsWith('null', i)) {
			out.push({ key, kind: 'z', v: null });
			i += 4;
		} else if (line.startsWith('true', i)) {
			out.push({ key, kind: 'b', v: 'true' });
			i += 4;
		} else if (line.startsWith('false', i)) {
			out.push({ key, kind: 'b', v: 'false' });
			i += 5;
		} else {
			let j = i;
			while (j < n && line[j] !== ',' && line[j] !== '}')
				j++;
			const t = line.slice(i, j);
			if (!NUM_RE.test(t))
				fail(`bad number '${t}'`);
			out.push({ key, kind: 'n', v: t });
			i = j;
		}
		const d = line[i++];
		if (d === '}') {
			if (i !== n) fail('text after }');
			return out;
		}
		if (d !== ',')
			fail('expected , or }');
	}
}

// Async iterator over the lines of a file.
export async function* fileLines(path) {
	const rl = createInterface({
		input: createReadStream(path, { encoding: 'utf8' }),
		crlfDelay: Infinity,
	});
	for await (const l of rl)
		yield l;
}

// Fraction digits of a plain decimal number text, or -1 for an integer
// text, or -2 for a number with an exponent.
export function scaleOf(text) {
	if (/[eE]/.test(text)) return -2;
	const dot = text.indexOf('.');
	return dot < 0 ? -1 : text.length - dot - 1;
}

// A decimal text as a scaled BigInt at scale s.
export function decimalToScaled(text, s) {
	let neg = false;
	if (text[0] === '-') { neg = true; text = text.slice(1); }
	const [ip, fp = ''] = text.split('.');
	if (fp.length > s)
		throw new Error(`${text} has more than ${s} fraction digits`);
	const v = BigInt(ip + fp.padEnd(s, '0'));
	return neg ? -v : v;
}

export function scaledToText(v, s) {
	const neg = v < 0n;
	let t = (neg ? -v : v).toString().padStart(s + 1, '0');
	if (s > 0) t = `${t.slice(0, -s)}.${t.slice(-s)}`;
	return (neg ? '-' : '') + t;
}

// "2024-01-02 03:04:05.250000", "2024-01-02T03:04:05.25" -> one spelling.
export function normTimestamp(t) {
	t = t.replace('T', ' ');
	if (t.includes('.'))
		t = t.replace(/0+$/, '').replace(/\.$/, '');
	return t;
}

// Compares a colpipe value {kind, v} with a DuckDB value (from
// DuckDBDataChunk.getColumns()) of DuckDB type name ty.  scale is
// colpipe's decimal scale for the column (-1 when not decimal).  Returns
// null when equal, else a description.
export function sameValue(cp, dv, ty, scale) {
	const show = () => `colpipe ${cp.kind === 's' ? JSON.stringify(cp.v) : cp.v} vs DuckDB ${ty} ${dv === null ? 'NULL' : JSON.stringify(String(dv))}`;
	if (dv === null || dv === undefined)
		return cp.kind === 'z' ? null : show();
	if (cp.kind === 'z')
		return show();
	if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/.test(ty)) {
		if (cp.kind !== 'n' || scaleOf(cp.v) !== -1) return show();
		return BigInt(cp.v) === BigInt(dv) ? null : show();
	}
	if (ty === 'DOUBLE' || ty === 'FLOAT') {
		if (cp.kind !== 'n') return show();
		const d = Number(dv);
		if (scale >= 0)
			return d.toFixed(scale) === cp.v ? null : show();
		return Number(cp.v) === d ? null : show();
	}
	if (ty.startsWith('DECIMAL')) {
		if (cp.kind !== 'n') return show();
		const s = Math.max(scaleOf(cp.v), 0);
		const ds = Math.max(scaleOf(String(dv)), 0);
		const S = Math.max(s, ds);
		return decimalToScaled(cp.v, S) === decimalToScaled(String(dv), S) ? null : show();
	}
	if (ty === 'BOOLEAN')
		return cp.kind === 'b' && cp.v === String(dv) ? null : show();
	if (ty === 'DATE')
		return cp.kind === 's' && cp.v === String(dv) ? null : show();
	if (ty.startsWith('TIMESTAMP'))
		return cp.kind === 's' && normTimestamp(cp.v) === normTimestamp(String(dv)) ? null : show();
	if (ty === 'VARCHAR')
		return cp.kind === 's' && cp.v === dv ? null : show();
	return `no comparison for DuckDB type ${ty}`;
}

// A small seeded PRNG (mulberry32): the random differential must be the
// same data on every run so that a failure can be replayed.
export function prng(seed) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
	const pick = (arr) => arr[int(0, arr.length - 1)];
	return { next, int, pick };
}
