/**
 * Requests that would work out the same answer at once: the first leads, the others wait until it
 * lands (its answer kept, or its request over without one). Keyed by whatever identifies the
 * answer; the leader is any object (the request) landed by the same object.
 */
export class SingleFlight {
  private readonly flights = new Map<string, { landed: Promise<void>; land: () => void }>();
  private readonly leaders = new WeakMap<object, string>();

  /** A waiter gives up after this and works the answer out itself: no flight can hold requests for ever. */
  constructor(private readonly maxWaitMs = 10_000) {}

  /** Waits for the flight under `key` if one is under way (at most maxWaitMs): true if it waited. */
  async wait(key: string): Promise<boolean> {
    const flight = this.flights.get(key);
    if (!flight) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([flight.landed, new Promise<void>((resolve) => { timer = setTimeout(resolve, this.maxWaitMs); })]);
    clearTimeout(timer);
    return true;
  }

  /** Starts the flight under `key`, led by `leader` (nothing if one is already under way). */
  lead(key: string, leader: object): void {
    if (this.flights.has(key)) return;
    let land = (): void => undefined;
    const landed = new Promise<void>((resolve) => { land = resolve; });
    this.flights.set(key, { landed, land });
    this.leaders.set(leader, key);
  }

  /** Ends the flight `leader` leads, if any: its waiters go on. */
  land(leader: object): void {
    const key = this.leaders.get(leader);
    if (key === undefined) return;
    this.leaders.delete(leader);
    this.flights.get(key)?.land();
    this.flights.delete(key);
  }

  get size(): number {
    return this.flights.size;
  }
}
