/**
 * What each source asks its users to show. `serve` puts the lines of the feeds that have run
 * on this database into the docs page; apps built on the API should show them too (docs/FEEDS-SETUP.md,
 * "Sources, licences and polling").
 */
export const ATTRIBUTION: Readonly<Record<string, string>> = {
  nsw: 'NSW, ACT and TAS prices: NSW FuelCheck, © State of New South Wales (Department of Customer Service).',
  qld: 'QLD prices: Queensland Government Fuel Price Reporting scheme.',
  sa: 'SA prices: SA Government Fuel Pricing Information scheme (Consumer and Business Services).',
  wa: 'WA prices: FuelWatch, Government of Western Australia.',
  vic: 'VIC prices: © State of Victoria accessed via the Victorian Government Service Victoria Platform (CC BY 4.0).',
  nt: 'NT prices: MyFuel NT, Northern Territory Government.',
};

/** The docs page's data note for a database fed by these feeds; empty when none has run. */
export function attributionNote(feeds: readonly string[]): string {
  const lines = feeds.map((f) => ATTRIBUTION[f]).filter((line): line is string => line !== undefined);
  return lines.length === 0 ? '' : `**Data sources.** ${lines.join(' ')}`;
}
