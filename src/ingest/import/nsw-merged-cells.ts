/**
 * The merged cells of NSW FuelCheck's history workbooks (nsw-history.ts reads the files): from
 * April 2020 a run of equal cells is written once, merged, and its other rows left blank. The
 * workbook lists its merged ranges after the rows, where a streaming reader cannot use them, so
 * fillDown says from the rows alone what each blank means.
 */
import type { Row } from './csv.ts';

/** The cells that name a row's station. */
export const STATION_FIELDS = ['ServiceStationName', 'Address', 'Suburb', 'Postcode'] as const;
/** Taken from the row above with the station, never on its own (a blank Brand alone is just a blank brand). */
const STATION_CARRIED = [...STATION_FIELDS, 'Brand'] as const;

/**
 * What a blank cell means in the workbooks that merge runs of equal cells (April 2020 and later;
 * the rule is written from what they show):
 *
 * - A row whose station fields (name, address, suburb, postcode) are all blank belongs to the
 *   station of the row above, brand included: merged station cells (20,551 ranges in April
 *   2020).
 * - On such a row, a blank FuelCode or PriceUpdatedDate is the row above's, which is then the
 *   same station's: 109 rows of April 2020 leave FuelCode blank there, 107 inside a merged
 *   FuelCode range the workbook declares and 2 on the first row of one of the export's pages of
 *   100 rows (3904, 61804), where no merge crosses the page; each is seconds after the row above
 *   with another price, and no station's row ever repeats the fuel above it explicitly. The one
 *   blank date (row 45567) is a declared merged range.
 * - A row that names its station fills nothing from above: the row above may be another
 *   station's, and nothing is taken across stations. Its blank FuelCode (16 rows of April 2020,
 *   each the first of a page, none in a merged range) is rejected (NSW_BLANK_FUEL), as are a
 *   blank date and a blank with nothing above it.
 *
 * - A row that gives its address but leaves ServiceStationName blank takes the name (and a blank
 *   Brand) of the row above: a merged name cell over two sites of one name (154 rows of April
 *   2020: "Caltex Wyong" on "M1 Southbound" then its "M1 Northbound" rows, "7-Eleven Kirrawee" at
 *   529-531 then 542 Princes Highway). The address is the row's own, so the station is the one
 *   of that name at that address; nothing else is taken from above.
 *
 * Returns the row as it reads with the blanks filled; what stays blank is ''.
 */
export function fillDown(row: Row, previous: Row | undefined): Row {
  const stationBlank = STATION_FIELDS.every((f) => (row[f] ?? '') === '');
  if (!stationBlank) {
    if ((row['ServiceStationName'] ?? '') !== '' || (previous?.['ServiceStationName'] ?? '') === '') return row;
    const named: Record<string, string> = { ...row, ServiceStationName: previous?.['ServiceStationName'] ?? '' };
    if ((row['Brand'] ?? '') === '') named['Brand'] = previous?.['Brand'] ?? '';
    return named;
  }
  const out: Record<string, string> = { ...row };
  for (const f of STATION_CARRIED) out[f] = previous?.[f] ?? '';
  for (const f of ['FuelCode', 'PriceUpdatedDate']) if ((out[f] ?? '') === '') out[f] = previous?.[f] ?? '';
  return out;
}
