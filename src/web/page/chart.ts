/** The city's daily average for one fuel, drawn by uPlot, with the price cycle's restorations marked. */
import uPlot from 'uplot';
import type { HistoryRecord } from './api.ts';
import { DAY_STEPS, PRICE_STEPS, dayLabels, onceEach } from './format.ts';

export interface CycleMarks {
  /** Unix seconds of the first days of the restorations the chart's days include, oldest first. */
  restorationsAt: number[];
  /** When the next one is due (the last plus the period), with a cycle. */
  nextDueAt?: number;
}

/** Records (newest first, as served) as uPlot's columns: x in unix seconds, y in dollars, oldest first. */
export function seriesOf(records: readonly HistoryRecord[]): [number[], number[]] {
  const sorted = [...records].sort((a, b) => a.timestamp - b.timestamp);
  return [sorted.map((r) => r.timestamp), sorted.map((r) => Number(r.average))];
}

const css = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** Vertical lines at the marks, drawn over the plot after uPlot draws its series. */
function marksPlugin(marks: CycleMarks): uPlot.Plugin {
  const line = (u: uPlot, at: number | undefined, colour: string, dash: number[], label: string, row: number): void => {
    if (at === undefined) return;
    const [min, max] = [u.scales.x?.min ?? 0, u.scales.x?.max ?? 0];
    if (at < min || at > max) return;
    const x = Math.round(u.valToPos(at, 'x', true));
    const { ctx } = u;
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.setLineDash(dash.map((d) => d * devicePixelRatio));
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.textAlign = x > u.bbox.left + u.bbox.width / 2 ? 'right' : 'left';
    // One row of text each, so that labels of lines close together do not overlap.
    ctx.fillText(label, x + (ctx.textAlign === 'left' ? 4 : -4) * devicePixelRatio, u.bbox.top + (14 + 16 * row) * devicePixelRatio);
    ctx.restore();
  };
  return {
    hooks: {
      draw: [(u) => {
        // Only the latest is labelled: the others are the same kind of line, and their labels would crowd.
        marks.restorationsAt.forEach((at, i) => line(u, at, css('--rise', '#c0392b'), [], i === marks.restorationsAt.length - 1 ? 'restoration' : '', 0));
        line(u, marks.nextDueAt, css('--due', '#8e44ad'), [6, 4], 'next due', 1);
      }],
    },
  };
}

/** Draws (or redraws) the chart into `host`, as wide as the host; days are placed and labelled in `timeZone` (the city's). */
export function drawChart(host: HTMLElement, data: [number[], number[]], fuelName: string, unit: string, marks: CycleMarks, timeZone: string): uPlot {
  host.replaceChildren();
  const width = Math.max(280, host.clientWidth);
  const dollars = (v: number | null): string => (v === null ? '' : `$${v.toFixed(2)}`);
  const labels = dayLabels(timeZone);
  const dayText = new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', year: 'numeric', timeZone });
  const shown = (key: 'xLabels' | 'yLabels', texts: string[]): string[] => {
    host.dataset[key] = texts.filter((t) => t !== '').join('|');
    return texts;
  };
  return new uPlot({
    width, height: 260, plugins: [marksPlugin(marks)],
    // The panel's title names the series; uPlot's live legend would only repeat it.
    legend: { show: false },
    // The x axis reaches the next restoration when it is due after the last day shown, so that its line is seen.
    scales: { x: { time: true, range: (_u, min, max) => [min, marks.nextDueAt !== undefined && marks.nextDueAt > max ? marks.nextDueAt + 43_200 : max] } },
    // Ticks at the city's midnights, not the browser's.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
    series: [
      { label: 'Day', value: (_u, v) => (v === null ? '' : dayText.format(new Date(v * 1000))) },
      { label: `${fuelName} (${unit})`, stroke: css('--accent', '#0b6e4f'), width: 2, points: { show: data[0].length <= 62 }, value: (_u, v) => dollars(v) },
    ],
    // Ticks a whole day and a whole cent apart at the least, so that no label is said twice on a narrow range;
    // the labels drawn are kept on the host (data-x-labels, data-y-labels) for the tests.
    axes: [
      { incrs: DAY_STEPS, values: (_u, ticks) => shown('xLabels', onceEach(labels(ticks))) },
      { incrs: PRICE_STEPS, values: (_u, ticks) => shown('yLabels', onceEach(ticks.map((t) => `$${t.toFixed(2)}`))), size: 60 },
    ],
  }, data, host);
}
