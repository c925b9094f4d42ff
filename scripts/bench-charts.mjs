#!/usr/bin/env node
// Charts for docs/performance.md, generated from the benchmark tables in it with Vega-Lite
// (rendered to SVG by Vega, headless: no browser, no native canvas).
//
// A table becomes a chart when the line before it (blank lines aside) is a marker:
//
//   <!-- chart: <id> | <bar|line> | <x column> | <y column> [| <color column>] [| log] -->
//
// Columns are named by their header text; a cell's first number is its value ("4606 (2216–4922)"
// → 4606). The SVG is written to docs/charts/<id>.svg, which the document links below the
// table. Usage: node scripts/bench-charts.mjs [file.md]   (default docs/performance.md)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';

const file = process.argv[2] ?? 'docs/performance.md';
const outDir = join(dirname(file), 'charts');
const lines = readFileSync(file, 'utf8').split('\n');
const marker = /^<!--\s*chart:\s*(.+?)\s*-->$/;

function cells(line) {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim().replace(/\*\*/g, ''));
}

function numberOf(text) {
  const m = /-?\d+(?:\.\d+)?/.exec(text.replace(/,/g, ''));
  return m === null ? undefined : Number(m[0]);
}

let made = 0;
for (let i = 0; i < lines.length; i++) {
  const m = marker.exec(lines[i].trim());
  if (m === null) continue;
  const [id, mark, xName, yName, ...rest] = m[1].split('|').map((s) => s.trim());
  const log = rest.includes('log');
  const colorName = rest.find((r) => r !== 'log');
  let j = i + 1;
  while (j < lines.length && !lines[j].trim().startsWith('|')) j++;
  const header = cells(lines[j]);
  const col = (name) => {
    const k = header.indexOf(name);
    if (k < 0) throw new Error(`chart ${id}: no column "${name}" in ${header.join(', ')}`);
    return k;
  };
  const xi = col(xName);
  const yi = col(yName);
  const ci = colorName === undefined ? undefined : col(colorName);
  const values = [];
  for (j += 2; j < lines.length && lines[j].trim().startsWith('|'); j++) {
    const row = cells(lines[j]);
    const y = numberOf(row[yi]);
    if (y === undefined) continue;
    const x = mark === 'line' ? numberOf(row[xi]) : row[xi];
    values.push({ x, y, ...(ci === undefined ? {} : { c: row[ci] }) });
  }
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 560,
    height: mark === 'bar' ? Math.max(120, values.length * 28) : 260,
    background: 'white',
    data: { values },
    mark: mark === 'line' ? { type: 'line', point: true } : { type: 'bar' },
    encoding:
      mark === 'line'
        ? {
            x: { field: 'x', type: 'quantitative', title: xName },
            y: { field: 'y', type: 'quantitative', title: yName },
            color: ci === undefined ? undefined : { field: 'c', type: 'nominal', title: null },
          }
        : {
            y: { field: 'x', type: 'nominal', title: null, sort: null, axis: { labelLimit: 640 } },
            x: {
              field: 'y',
              type: 'quantitative',
              title: yName,
              ...(log ? { scale: { type: 'log' } } : {}),
            },
            color: ci === undefined ? undefined : { field: 'c', type: 'nominal', title: null },
          },
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${id}.svg`), svg);
  console.log(`${join(outDir, `${id}.svg`)}: ${values.length} points`);
  made++;
}
if (made === 0) console.log(`no chart markers in ${file}`);
