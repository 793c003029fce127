/**
 * NSW FuelCheck addresses, as the live answer and the published workbooks write them
 * ("424 Cleveland St, SURRY HILLS NSW 2010", "... NSW AUSTRALIA 2460", "... NEW SOUTH WALES 2323",
 * no comma before the suburb, a suburb cell of its own): street, suburb, state and postcode, and
 * the state a station is in (the ACT comes through the NSW feed). The forms seen in the real files
 * are listed by scripts/nsw-address-scan.ts; docs/DATA.md gives the rules.
 */
import type { StateId } from '../../domain/states.ts';

const STATE_ABBREVS = /^(NSW|ACT|TAS|VIC|QLD|SA|WA|NT)$/i;

/**
 * The state a run of words ends with, removed from them: "NSW", "ACT", ... or "NEW SOUTH WALES",
 * with an "AUSTRALIA" after it and a state written twice ("Bermagui NSW NSW") dropped too. ''
 * (and the words as they were) when they end with none.
 */
export function popNswState(words: string[]): string {
  if (/^australia$/i.test(words[words.length - 1] ?? '')) words.pop();
  let state = '';
  for (;;) {
    const last = words[words.length - 1] ?? '';
    if (STATE_ABBREVS.test(last)) {
      state ||= last.toUpperCase();
      words.pop();
    } else if (words.length >= 3 && words.slice(-3).join(' ').toUpperCase() === 'NEW SOUTH WALES') {
      state ||= 'NSW';
      words.splice(-3);
    } else {
      return state;
    }
  }
}

/**
 * Street, suburb, the state written in it and postcode of a FuelCheck address. Every form the
 * real answers and workbooks show (scripts/nsw-address-scan.ts lists them): "<street>, <SUBURB>
 * NSW <postcode>" (nearly all), "... JACKADGERY NSW AUSTRALIA 2460", "..., Metford NEW SOUTH
 * WALES 2323", "..., Bermagui NSW NSW 2456", "PRAIRIEWOOD NSW 20176", no comma at all ("827 Anzac Parade Maroubra NSW
 * 2035"), and a comma before the street instead ("Shop 3, 1190 Miami Street Glenwood NSW 2768").
 */
export function splitNswAddress(address: string): { street: string; suburb: string; state: string; postcode: string } {
  const parts = address.split(',').map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '');
  if (parts.length > 0 && /^australia$/i.test(parts[parts.length - 1] ?? '')) parts.pop();
  const words = (parts.pop() ?? '').split(' ').filter((w) => w !== '');
  const postcode = /^\d{4}$/.test(words[words.length - 1] ?? '') ? words.pop() ?? '' : '';
  // A postcode mistyped with five digits ("PRAIRIEWOOD NSW 20176", 293 rows of 2018) is no postcode, but still ends the suburb.
  if (postcode === '' && /^\d{5}$/.test(words[words.length - 1] ?? '') && STATE_ABBREVS.test(words[words.length - 2] ?? '')) words.pop();
  const state = popNswState(words);
  let suburb = words.join(' ');
  // No comma before the suburb, or one before the street only: the suburb is told from the street by its words.
  if ((parts.length === 0 && suburb !== '') || /\d/.test(suburb)) {
    const split = splitWithoutComma(words);
    return { street: [...parts, split.street].filter((p) => p !== '').join(', '), suburb: titleCase(split.suburb), state, postcode };
  }
  if (suburb === '') suburb = parts.pop() ?? '';
  return { street: parts.join(', '), suburb: titleCase(suburb), state, postcode };
}

/** A history file's Suburb cell as a suburb: "BARGO NSW" and "Bermagui NSW" (as April 2020 writes them) lose the state. */
export function nswSuburbCell(text: string): string {
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter((w) => w !== '');
  if (/^\d{4}$/.test(words[words.length - 1] ?? '')) words.pop();
  popNswState(words);
  return words.join(' ');
}

/** Street types that end a street's name ("Anzac Parade", "DAVID ST"), in full and abbreviated. */
const STREET_TYPES = new Set(['ST', 'STREET', 'RD', 'ROAD', 'AVE', 'AV', 'AVENUE', 'HWY', 'HIGHWAY', 'PDE', 'PARADE', 'DR', 'DRIVE',
  'TCE', 'TERRACE', 'PL', 'PLACE', 'CRES', 'CRESCENT', 'BLVD', 'BOULEVARD', 'LN', 'LANE', 'CCT', 'CIRCUIT', 'WAY', 'CL', 'CLOSE', 'CT', 'COURT',
  'ESP', 'ESPLANADE', 'SQ', 'SQUARE', 'GR', 'GROVE']);

/**
 * An address with no comma before its state and postcode (5 of FuelCheck's 2,849 stations on
 * 30 June 2024): the words after the last street type are the suburb ("827 Anzac Parade
 * Maroubra" -> Maroubra; "Corner Pacific Hwy and Halls Road Coffs Harbour" -> Coffs Harbour);
 * without a street type, words without a number are the suburb alone ("Wagga Wagga"); otherwise
 * the suburb is left empty rather than guessed.
 */
function splitWithoutComma(words: readonly string[]): { street: string; suburb: string } {
  let last = -1;
  words.forEach((w, i) => { if (STREET_TYPES.has(w.toUpperCase())) last = i; });
  if (last >= 0 && last < words.length - 1) return { street: words.slice(0, last + 1).join(' '), suburb: words.slice(last + 1).join(' ') };
  if (last < 0 && !words.some((w) => /\d/.test(w))) return { street: '', suburb: words.join(' ') };
  return { street: words.join(' '), suburb: '' };
}

/** FuelCheck writes most suburbs in capitals ("SURRY HILLS"); shown as "Surry Hills". Mixed case is kept. */
function titleCase(text: string): string {
  if (text !== text.toUpperCase()) return text;
  return text.toLowerCase().replace(/(^|[\s\-'])([a-z])/g, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/** ACT postcodes (2600-2620 and 2900-2920; 2619 and 2620 are shared with Queanbeyan, so only a fallback). */
function isActPostcode(postcode: string): boolean {
  const n = Number(postcode);
  return /^\d{4}$/.test(postcode) && ((n >= 2600 && n <= 2620) || (n >= 2900 && n <= 2920));
}

/**
 * Where a station is: the record's `state` when it names TAS or ACT; for the NSW feed's records
 * (ACT stations come through it too) the state written in the address, else the postcode.
 */
export function nswStationState(feedState: string, address: { state: string; postcode: string }): StateId {
  const given = feedState.trim().toUpperCase();
  if (given === 'TAS') return 'tas';
  if (given === 'ACT') return 'act';
  if (address.state === 'ACT') return 'act';
  if (address.state === 'TAS') return 'tas';
  if (address.state === 'NSW') return 'nsw';
  return isActPostcode(address.postcode) ? 'act' : 'nsw';
}
