#!/usr/bin/env bash
# The advice measured on real data (issue 47; docs/BACKTEST.md "Real data"): replays QLD's 67 weeks of price changes
# (Aug 2021 - Nov 2022) and WA's FuelWatch days (Apr - May 2026) into two SQLite databases, then runs
# `fuelprice backtest` per city and period and prints one line per city and period: the advice beside every baseline.
# Usage: scripts/advice-backtest.sh [WORKDIR] [all|first]   (default /tmp/fuelprice-advice; the databases are kept and
# reused; all|first is `fuelprice backtest --start-day`: all, the default, pools a driver starting on each of the 7 days)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node24.sh >/dev/null
REAL=${FUELPRICE_REALDATA:-../shared/realdata}
WORK=${1:-/tmp/fuelprice-advice}
START_DAY=${2:-all}
mkdir -p "$WORK"
fp() { node bin/fuelprice.js "$@"; }

# QLD: the weekly API archive as monthly-layout CSVs with the February 2023 file's site details, then `import qld-history`.
if [ ! -f "$WORK/qld.done" ]; then
  node scripts/qld-weekly-csv.mjs "$REAL/qld_fpd_api_getsitesprices_weekly_csv" \
    "$REAL/qld_fuel_price_reporting_monthly_csv/2023-02-lastmonthsfpqprices_changesonly.csv" "$WORK/qld-csv"
  DATABASE_URL="sqlite:$WORK/qld.db" fp migrate >/dev/null
  DATABASE_URL="sqlite:$WORK/qld.db" fp import qld-history "$WORK/qld-csv" | tail -1
  touch "$WORK/qld.done"
fi
# WA: every FuelWatch site-API day, as docs/CYCLE.md replays it.
if [ ! -f "$WORK/wa.done" ]; then
  DATABASE_URL="sqlite:$WORK/wa.db" fp migrate >/dev/null
  DATABASE_URL="sqlite:$WORK/wa.db" fp import wa-history "$REAL/wa_fuelwatch_api_daily_snapshots/" | tail -1
  touch "$WORK/wa.done"
fi

# One line per run: city, period, then saved c/L (share of the oracle) for each rule.
row() { # label db now args...
  local label=$1 db=$2 now=$3; shift 3
  DATABASE_URL="sqlite:$WORK/$db" FUELPRICE_NOW=$now fp backtest --start-day "$START_DAY" "$@" | awk -v label="$label" '
    NR == 1 { n = $0; sub(/.*: /, "", n); sub(/ purchases.*/, "", n) }
    NR > 2 { saved[$1] = $3; share[$1] = $4 }
    END {
      printf "%-46s %3s", label, n
      split("advice cheapest-weekday tomorrow-higher stopped-falling near-low oracle", r, " ")
      for (i = 1; i <= 6; i++) printf " %7s %5s", saved[r[i]], share[r[i]]
      printf "\n"
    }'
}
echo "start days: $START_DAY (fuelprice backtest --start-day)"
printf '%-46s %3s' 'city fuel, period' 'n'
for r in advice cheapest-wkday tomorrow-higher* stopped-falling near-low oracle; do printf ' %13s' "$r"; done
printf '\n'
QLD_NOW=2022-11-07T12:00:00+10:00
# Tuned on the first period, reported on the second (held out): docs/BACKTEST.md.
for city in brisbane gold-coast toowoomba townsville cairns rockhampton mackay bundaberg gympie warwick dalby; do
  row "$city ulp91, tune 2021-09-07..2022-03-31" qld.db $QLD_NOW --city "$city" --from 2021-09-07 --to 2022-03-31 --without-tomorrow
  row "$city ulp91, held 2022-04-01..2022-11-03" qld.db $QLD_NOW --city "$city" --from 2022-04-01 --to 2022-11-03 --without-tomorrow
done
WA_NOW=2026-06-01T12:00:00+08:00
for city in perth mandurah bunbury geraldton albany kalgoorlie; do
  row "$city ulp91, with tomorrow" wa.db $WA_NOW --city "$city" --from 2026-04-12
  row "$city ulp91, without tomorrow" wa.db $WA_NOW --city "$city" --from 2026-04-12 --without-tomorrow
done
echo '* tomorrow-higher is a bound (it knows the next day) except in WA with tomorrow, where the next day is published.'
