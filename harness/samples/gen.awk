#!/usr/bin/awk -f
#
# gen.awk - writes samples/orders.csv, the sample data of "make demo".
#
# Deterministic on every awk (mawk, gawk, busybox): the random numbers come
# from our own Park-Miller generator, never from rand(), whose sequence
# differs between implementations; every product stays below 2^53 so
# doubles hold it exactly.  Money is computed in integer cents and printed
# with exactly two fraction digits, so amount = quantity * unit_price holds
# to the cent.
#
# The file is canonical CSV as col2csv(1) writes it: a field is quoted only
# when it holds a comma, a quote, CR or LF, and an empty field is NULL.
# That makes "csv2col orders.csv.gz | col2csv" give back the same bytes.
#
# Usage: awk -f samples/gen.awk > orders.csv   (samples/gen.sh wraps it)

function rnd(n)
{
	# Park-Miller "minimal standard": 16807 * (2^31 - 1) < 2^53.
	seed = (seed * 16807) % 2147483647
	return seed % n
}

function pick(list,    a, k)
{
	k = split(list, a, "|")
	return a[rnd(k) + 1]
}

function money(cents)
{
	return sprintf("%d.%02d", int(cents / 100), cents % 100)
}

function csvfield(s)
{
	if (s ~ /[",\r\n]/) {
		gsub(/"/, "\"\"", s)
		return "\"" s "\""
	}
	return s
}

# Day of year (0-based) in 2024, a leap year, to an ISO date.
function date2024(doy,    m)
{
	for (m = 1; doy >= mdays[m]; m++)
		doy -= mdays[m]
	return sprintf("2024-%02d-%02d", m, doy + 1)
}

BEGIN {
	seed = 20240101
	nrows = (nrows ? nrows : 400)
	split("31 29 31 30 31 30 31 31 30 31 30 31", mdays, " ")

	customers = "Acme, Inc.|Globex Corporation|Initech|Umbrella Ltd" \
	    "|Stark Industries|Wayne Enterprises|Hooli|Vandelay Industries" \
	    "|The \"Blue\" Door Cafe|Soylent Corp|Tyrell Corporation" \
	    "|Cyberdyne Systems|Wonka Industries|Bluth Company" \
	    "|Sterling Cooper|Dunder Mifflin"
	countries = "DE|FR|NL|SE|US|CA|JP|BR|ZA|IN"
	skus = "A-100|A-110|B-200|B-250|C-300|C-310|D-400|E-500"
	notes = "gift wrap|leave at door|call before delivery" \
	    "|fragile, handle with care|invoice by e-mail"

	print "order_id,order_date,customer,country,sku,quantity," \
	    "unit_price,discount,amount,paid,shipped_at,note"

	doy = 0
	for (i = 0; i < nrows; i++) {
		id = 10001 + i
		# Orders arrive in date order, a few per day.
		doy += rnd(3) == 0 ? 1 : 0
		if (doy > 365)
			doy = 365
		qty = 1 + rnd(24)
		price = 199 + rnd(49800)		# cents
		amount = qty * price

		# About one order in twelve has no discount recorded (NULL).
		d = rnd(12)
		if (d == 0)
			discount = ""
		else
			discount = money(5 * rnd(4))	# 0.00 .. 0.15

		paid = rnd(5) == 0 ? "false" : "true"

		# Unshipped orders have no shipping time (NULL).
		if (rnd(6) == 0)
			shipped = ""
		else {
			sday = doy + 1 + rnd(3)
			if (sday > 365)
				sday = 365
			shipped = sprintf("%s %02d:%02d:%02d", date2024(sday),
			    7 + rnd(12), rnd(60), rnd(60))
		}

		note = rnd(4) == 0 ? pick(notes) : ""

		printf "%d,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s\n", id,
		    date2024(doy), csvfield(pick(customers)),
		    pick(countries), pick(skus), qty, money(price), discount,
		    money(amount), paid, shipped, csvfield(note)
	}
}
