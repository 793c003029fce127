/**
 * Which NSW site a station record or a history row is, as a pure function of its own fields:
 * the site key (docs/DATA.md, "One station per site"). The history importer finds a row's
 * station by it, a station a history file creates is coded by it (`history:<site key>`), and a
 * live FuelCheck station carries the code of the history station it takes over (`adopts`), so
 * the same files and answers give the same stations in any order.
 */
import { createHash } from 'node:crypto';
import { nswSuburbCell, popNswState, splitNswAddress } from './feeds/nsw-address.ts';
import type { FeedStation } from '../storage/store.ts';
import type { RawStation } from './normalise.ts';

/** Street words written out and abbreviated both occur ("99 Bellevue Rd" in 2018, "99 Bellevue Road" in 2020); keys use the short form. */
const STREET_WORDS: Readonly<Record<string, string>> = {
  road: 'rd', street: 'st', avenue: 'ave', av: 'ave', highway: 'hwy', hway: 'hwy', drive: 'dr', parade: 'pde',
  place: 'pl', lane: 'ln', crescent: 'cres', boulevard: 'blvd', boulevarde: 'blvd', bvd: 'blvd', terrace: 'tce',
  court: 'ct', corner: 'cnr', mount: 'mt', close: 'cl', circuit: 'cct', square: 'sq', esplanade: 'esp',
  north: 'nth', south: 'sth',
};

/** Words of a name that tell two sites on one road apart ("BP Marulan Northbound" and "Southbound", both at "Hume Highway"). */
const SIDES: Readonly<Record<string, string>> = {
  northbound: 'nb', southbound: 'sb', eastbound: 'eb', westbound: 'wb', nb: 'nb', sb: 'sb', eb: 'eb', wb: 'wb',
};

/** A form of text for matching addresses and names: lower case, `&` as `and`, punctuation gone, spaces collapsed. */
function plainWords(text: string): string[] {
  return text.toLowerCase().replace(/&/g, ' and ').replace(/[^a-z0-9]+/g, ' ').trim().split(' ').filter((w) => w !== '');
}

/** A postcode as four digits ("2099", "2099.0" from a spreadsheet, "800" -> "0800"), or ''. */
export function postcodeOf(text: string): string {
  const digits = text.trim().replace(/\.0+$/, '');
  return /^\d{3,4}$/.test(digits) ? digits.padStart(4, '0') : '';
}

/**
 * The street part of an address as a matching key with its postcode. FuelCheck writes
 * "940 Pittwater Road & Hawkesbury Avenue, Dee Why NSW 2099": the postcode, state ("NSW",
 * "NSW AUSTRALIA", "NEW SOUTH WALES") and suburb at the end are dropped (they may or may not be
 * there), street words are abbreviated, case and punctuation ignored. '' when nothing is left.
 */
export function nswAddressKey(address: string, suburb: string, postcode: string): string {
  const code = postcodeOf(postcode);
  let words = plainWords(address);
  if (code !== '' && words[words.length - 1] === code) words.pop();
  popNswState(words);
  // A blank Suburb cell (April 2020's "BP CLOVELLY, 33-37 Carrington Rd, RANDWICK NSW 2031"): the suburb the address ends with.
  const place = plainWords(nswSuburbCell(suburb) || splitNswAddress(address).suburb);
  const tail = words.slice(words.length - place.length);
  if (place.length > 0 && place.length < words.length && place.every((w, i) => tail[i] === w)) words = words.slice(0, -place.length);
  if (words.length === 0 || code === '') return '';
  return `${words.map((w) => STREET_WORDS[w] ?? w).join(' ')}|${code}`;
}

/** A station's name as a matching key with its postcode; '' when either is missing. */
export function nswNameKey(name: string, postcode: string): string {
  const code = postcodeOf(postcode);
  const words = plainWords(name);
  return words.length === 0 || code === '' ? '' : `${words.join(' ')}|${code}`;
}

/**
 * The site a station's fields name: its address key, with the side of the road when the name
 * or address gives one (northbound, southbound, ...). The brand and the rest of the name are
 * not part of it: a rebrand or a new name is the same site ("Caltex Figtree" then "Metro
 * Figtree" at 99 Bellevue Rd/Road). '' when the address gives no key (no street or postcode).
 */
export function nswSiteKey(name: string, address: string, suburb: string, postcode: string): string {
  const key = nswAddressKey(address, suburb, postcode);
  if (key === '') return '';
  const sides = new Set([...plainWords(name), ...plainWords(address)].map((w) => SIDES[w]).filter((s) => s !== undefined));
  return sides.size === 1 ? `${key}|${[...sides][0] ?? ''}` : key;
}

/** Prefix of the codes of stations created from history files: the live feed's codes ("NSW-972") never start so. */
export const NSW_HISTORY_CODE_PREFIX = 'history:';
const MAX_CODE = 100;

/**
 * The code of the station a history row makes when no live station is at its site:
 * `history:<site key>`, or `history:name:<name key>` for a row whose address gives no key.
 * Codes over 100 characters keep their start and a hash of the whole. '' when neither key exists.
 */
export function nswHistoryCode(name: string, address: string, suburb: string, postcode: string): string {
  const site = nswSiteKey(name, address, suburb, postcode);
  const nameKey = nswNameKey(name, postcode);
  const code = site !== '' ? `${NSW_HISTORY_CODE_PREFIX}${site}` : nameKey !== '' ? `${NSW_HISTORY_CODE_PREFIX}name:${nameKey}` : '';
  if (code.length <= MAX_CODE) return code;
  return `${code.slice(0, MAX_CODE - 13)}#${createHash('sha1').update(code).digest('hex').slice(0, 12)}`;
}

export function isNswHistoryCode(code: string): boolean {
  return code.startsWith(NSW_HISTORY_CODE_PREFIX);
}

type Named = Pick<FeedStation, 'feedCode' | 'name' | 'address' | 'suburb' | 'postcode'>;

/** Keys held by exactly one of the items: those of two or more map to null. */
function unique<T>(items: readonly T[], key: (item: T) => string): Map<string, T | null> {
  const out = new Map<string, T | null>();
  for (const item of items) {
    const k = key(item);
    if (k !== '') out.set(k, out.has(k) ? null : item);
  }
  return out;
}

/**
 * The live stations, by site, as a history row is matched to them: a site two live stations
 * share (a shopping centre's chargers; "Ampol Seven Hills" and "Ampol Foodary Seven Hills (Abbott
 * Rd)" at 38 Abbott Rd) is neither's. A name alone never joins a row to a live station: FuelCheck
 * has several "7-Eleven Blacktown", and a rule by name would depend on which file came first
 * (a site's rows carry several names over the years: docs/DATA.md).
 */
export class NswLiveSites {
  readonly bySite: Map<string, Named | null>;
  constructor(live: readonly Named[]) {
    this.bySite = unique(live, (s) => nswSiteKey(s.name, s.address, s.suburb, s.postcode));
  }

  /** The live station at a history row's site, when exactly one is there. */
  match(name: string, address: string, suburb: string, postcode: string): Named | undefined {
    const site = nswSiteKey(name, address, suburb, postcode);
    return site === '' ? undefined : this.bySite.get(site) ?? undefined;
  }
}

/**
 * The history station each new live station of an answer takes over (StationInput.adopts), by
 * the rule a history row follows when the live station is stored first (NswLiveSites.match):
 * the history station of its site, when it is the answer's only station there. Stations stored
 * already adopt nothing.
 */
export function nswAdoptions(answer: readonly RawStation[], stored: readonly Named[]): Map<string, string> {
  const storedCodes = new Set(stored.map((s) => s.feedCode));
  const historyCodes = new Set(stored.filter((s) => isNswHistoryCode(s.feedCode)).map((s) => s.feedCode));
  const live = new NswLiveSites(answer.map((s) => ({ ...s, feedCode: s.code })));
  const out = new Map<string, string>();
  for (const s of answer) {
    if (storedCodes.has(s.code)) continue;
    const site = nswSiteKey(s.name, s.address, s.suburb, s.postcode);
    const own = site === '' ? '' : nswHistoryCode(s.name, s.address, s.suburb, s.postcode);
    if (own !== '' && live.bySite.get(site)?.feedCode === s.code && historyCodes.has(own)) out.set(s.code, own);
  }
  return out;
}
