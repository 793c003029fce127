/** The status line above the panels: loading, a refused token, the rate limit (with its countdown), an error, or nothing. */
import { retryText } from './format.ts';
import { ui } from './ui.ts';

export type StatusKind = 'idle' | 'loading' | 'bad-token' | 'rate-limited' | 'error';

let countdown: ReturnType<typeof setInterval> | undefined;

export function setStatus(kind: StatusKind, text = '', canRetry = false): void {
  clearInterval(countdown);
  ui.status.dataset.state = kind;
  ui.status.hidden = kind === 'idle';
  ui.statusText.textContent = text;
  ui.retry.hidden = !canRetry;
  ui.retry.disabled = false;
}

/** Over the rate limit: says when to try again (Retry-After), counting down; Try again is enabled when the time is up. */
export function showRateLimited(retryAfterSec: number): void {
  const until = Date.now() + retryAfterSec * 1000;
  const tick = (): void => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    ui.statusText.textContent = `Too many requests with this token: its rate limit is reached. ${retryText(left)}`;
    ui.retry.disabled = left > 0;
    if (left === 0) clearInterval(countdown);
  };
  setStatus('rate-limited', '', true);
  ui.status.dataset.retryAfter = String(retryAfterSec);
  tick();
  countdown = setInterval(tick, 1000);
}
